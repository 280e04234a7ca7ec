// The UI's sync layer: the only code that writes the stores (src/renderer/stores). Components read stores
// through selector hooks and call what is exported here.
//   ordering.ts  pure: live events per conversation in seq order, each once, gaps filled from history
//   reduce.ts    pure: the state updates (new objects, never in place)
//   live.ts      sign-in, the live stream, reconnects
//   loaders.ts   reads from the hub: lists, history pages, pins, threads, progress, file links
//   timeline.ts  writes of the timeline store; requests.ts / unread.ts: the inbox and unread counts
//   router.ts    which screen and conversation is shown, thread, focus, panels
//   actions.ts   the owner's actions
//   uploads.ts   the owner's files (files.send) with their upload's progress
//   rules.ts     standing rules for agents' own permission prompts
//   waiting.ts   what waits for the owner: the tab's title, favicon, Approvals count and desktop notifications
export { errorText } from './common';
export { loadControls, pauseAgent, pauseAll, resumeAgent, resumeAll, setCaps } from './control'; // owner control
export { boot, forgetThisPhone, signOut } from './live';
export { fileLink, loadOlder, refreshReads } from './loaders';
export { selectRequest, setRequestDraft } from './requests';
export { discardHeld, selectHeld, sendHeld, setHeldDraft, setReview } from './held';
export {
  closeImage,
  closeThread,
  focusMessage,
  hideActivity,
  hrefOf,
  openImage,
  openMessage,
  openThread,
  openView,
  showNewConversation,
  toggleActivity,
} from './router';
export {
  addAgent,
  addMember,
  answerCard,
  createConversation,
  decideRequest,
  decideWithDraft,
  editMessage,
  handBack,
  hideMessage,
  openDirectWith,
  pin,
  react,
  recallMessage,
  revokeAgent,
  rotateKey,
  searchMessages,
  sendMessage,
  sendNote,
  setFilter,
  setFloor,
  setReplyTo,
  setTask,
  updateAgentConfig,
  type ConfigPatch,
  addAgentKey,
  listAgentKeys,
  revokeAgentKey,
  resumeConversation,
  setAgentBudget, // brakes
  setArchived, // archived conversations
} from './actions';
export { acceptSuggestion, answerAlways, dismissSuggestion, loadRules, loadSuggestions, removeRule } from './rules'; // standing rules for agents' own permission prompts
export { attachRefusal, sendFile, textAsFile, type FileTarget } from './uploads'; // the owner's files (files.send)
export { canNotifyDesktop, setDesktopNotifications, startWaitingSignals } from './waiting'; // nothing waits unseen
export { UNDO_MS, setDecideAtOnce, setPromptWindow, undoDecision, undoLastDecision } from './undo';
export {
  cancelQueuedRun,
  loadWakeLimits,
  loadWakeState,
  setWake,
  setWakeLimits,
  startQueuedRun,
  stopWakeRun,
  wakeLogTail,
  type WakeInput,
} from './wake';
export { defaultDeviceName, enableNotifications, forgetThisDevice, handBackFromPhone, pairThisDevice, resetPairing } from './paired-device'; // a paired phone
export {
  cancelPairing,
  clearPairing,
  confirmPairing,
  loadDeviceAudit,
  loadDevices,
  loadPhonePage,
  markPairingExpired,
  revokeDevice,
  saveNtfy,
  savePublicUrl,
  sendTestPush,
  setPushContent,
  startPairing,
} from './phone-settings'; // Settings → Phone
