// The owner API's actions: ONE typed map from each action of the contract (src/shared/api/owner-api.ts) to a
// thin call into hub services, with the owner as the actor. A handler takes the action's parsed input
// and answers its result type (OwnerResult<A>, which the UI reads too); a missing action is a compile
// error. Like the MCP door, this door reaches the store only through the hub.
import type { PerchHub } from '../hub/services';
import { HubError, isHubError } from '../../shared/errors';
import { visibleDeep, visibleText } from '../../shared/text/text';
import { tooDeep } from '../../shared/text/json-depth';
import { LIMITS } from '../../shared/limits';
import { OWNER_ACTIONS, type OwnerAction, type OwnerArgs, type OwnerResult } from '../../shared/api/owner-api';
import type { RequestState } from '../../shared/types';
import { addMember, createGroup, createTask, listAllConversations, openDirect } from '../hub/talk/conversations';
import {
  editMessage,
  getHistory,
  getThread,
  hideMessage,
  listPins,
  pin,
  react,
  recallMessage,
  search,
  sendMessage,
} from '../hub/talk/messages';
import { addAgent, listAgents, revokeAgent, rotateKey, updateConfig } from '../hub/control/agents';
import { agentActivity, listProgress } from '../hub/features/progress/progress';
import { fleetControls, pauseAgent, pauseAll, resumeAgent, resumeAll, setCaps } from '../hub/control/control';
import {
  ensureOwnerMember,
  hubInfo,
  markRead,
  ownerConversation,
  requireConversation,
  sendNote,
  sendOwnerFile,
} from '../hub/features/owner/owner';
import { resumeConversation, setAgentBudget } from '../hub/control/brakes';
import { handBack, listActiveHandoffs } from '../hub/features/coordination/handoffs';
import { setTaskState } from '../hub/features/coordination/tasks';
import { ownerFloor } from '../hub/features/coordination/floor';
import { decideRequest, listRequests } from '../hub/features/requests/owner-decisions';
import { importPermissionRules, listPermissionRuleViews, removePermissionRule } from '../hub/features/requests/permission-rules';
import { acceptRuleSuggestion, dismissRuleSuggestion, listRuleSuggestions } from '../hub/features/rules/suggestions';
import { ensureShellParser } from '../hub/features/rules/shell-parser';
import { addRuleOrAnswer } from '../hub/features/requests/permission-answers';
import { answerCard } from '../hub/features/cards/cards';
import { ownerFileUrl, readFile, verifyAwayFileToken, verifyFileToken } from '../hub/features/files/files';
import { discardHeld, listHeld, sendHeld, setReview } from '../hub/features/review/review';
import { setWakeAction } from '../hub/wake-runs/wake-action';
import { listRuns, runLog, startQueuedRun, stopRun, wakeState } from '../hub/wake-runs/wake-views';
import { setWakeLimits, wakeLimits } from '../hub/wake-runs/wake-limits';
import { costLedger, listPerchEvents, listToolCallsInTurns } from '../hub/features/ledger/calls';
import { localDay } from '../../shared/agents/control';
import { connectionSnippets } from './snippets';
import { awaySnippets } from '../../shared/agents/snippets';
import { placesWarning } from '../../shared/agents/places';
import { addAgentKey, listAgentKeys, revokeScopedKey } from '../hub/identity/agent-keys';
import { setKeyPlaces } from '../hub/identity/places';
import { setFileReader } from './files-door';
import { containersStateOffline, setContainersOffline } from '../container-switch';
import { getDevice, getPhoneSettings, listAudit, listDevices, publicUrl, revokeDevice, setPhoneSettings } from '../hub/phone/devices';
import { cancelPairing, confirmPairing, pairingStatus, startPairing } from '../hub/phone/pairing';
import { sendTestPush } from '../hub/phone/notify';
import { archiveConversation, unarchiveConversation } from '../hub/talk/archive';
import { retentionStatus, setRetentionRule } from '../hub/features/retention/retention';
import { retentionDryRun } from '../hub/features/retention/retention-plan';
import type { DecidedOn } from '../../shared/ledger/harness-events';

/** Who calls an owner action: the laptop (the Perch window, `perch owner`, the browser UI on this computer) or a paired device. */
export interface OwnerCaller {
  device?: { id: string; name: string };
}

/** One owner action: the owner's parsed input in (and who calls), the action's result out. */
export type OwnerActionHandler<A extends OwnerAction> = (
  hub: PerchHub,
  input: OwnerArgs<A>,
  by: OwnerCaller,
) => OwnerResult<A> | Promise<OwnerResult<A>>;

export const ownerActions: { [A in OwnerAction]: OwnerActionHandler<A> } = {
  'hub.info': (hub) => hubInfo(hub),
  'hub.storage': (hub) => ({ storage: hub.storage }),
  'conversations.list': (hub) => ({ conversations: listAllConversations(hub) }),
  'conversations.get': (hub, a) => ({ conversation: ownerConversation(hub, a.conv_id) }),
  'conversations.history': (hub, a) => getHistory(hub, hub.ownerId, a.conv_id, a, true),
  'conversations.thread': (hub, a) => getThread(hub, hub.ownerId, a.conv_id, a.thread_id, a, true),
  'conversations.search': (hub, a) => search(hub, hub.ownerId, a, true),
  'conversations.open_direct': (hub, a) => ({ conversation: openDirect(hub, hub.ownerId, a.user) }),
  'conversations.create_group': (hub, a) => ({ conversation: createGroup(hub, hub.ownerId, a.title, a.members) }),
  'conversations.create_task': (hub, a) => ({ conversation: createTask(hub, hub.ownerId, a.title, a.members, a.assignee) }),
  'conversations.add_member': (hub, a) => {
    ensureOwnerMember(hub, a.conv_id);
    return { conversation: addMember(hub, hub.ownerId, a.conv_id, a.user, a.history) };
  },
  'conversations.mark_read': (hub, a) => markRead(hub, a.conv_id, a.seq),
  'messages.send': (hub, a) => {
    ensureOwnerMember(hub, a.conv_id);
    return sendMessage(hub, hub.ownerId, a);
  },
  'messages.edit': (hub, a) => editMessage(hub, hub.ownerId, a.msg_id, a.text),
  'messages.recall': (hub, a) => recallMessage(hub, hub.ownerId, a.msg_id),
  'messages.react': (hub, a) => {
    ensureOwnerMember(hub, a.conv_id);
    return react(hub, hub.ownerId, a.conv_id, a.msg_id, a.key, a.on);
  },
  'messages.pin': (hub, a) => {
    ensureOwnerMember(hub, a.conv_id);
    return pin(hub, hub.ownerId, a.conv_id, a.msg_id, a.on);
  },
  'messages.pins': (hub, a) => listPins(hub, hub.ownerId, a.conv_id, undefined, true),
  'messages.hide': (hub, a) => hideMessage(hub, hub.ownerId, a.msg_id, a.on),
  'notes.send': (hub, a) => sendNote(hub, a),
  'agents.list': (hub) => ({ agents: listAgents(hub) }),
  'agents.add': (hub, a) => {
    const { agent, key } = addAgent(hub, a);
    return {
      agent,
      key,
      snippets: { ...connectionSnippets(`${hub.doors.baseUrl}/mcp`, agent.name, key), ...awayOf(hub, agent.name, agent.from, key) },
      ...warnedOf(agent.from),
    };
  },
  'agents.update_config': (hub, a) => {
    const { agent, ...patch } = a;
    return { agent: updateConfig(hub, agent, patch) };
  },
  'agents.rotate_key': (hub, a) => {
    const { agent, key } = rotateKey(hub, a.agent);
    return { agent, key, snippets: connectionSnippets(`${hub.doors.baseUrl}/mcp`, agent.name, key) };
  },
  'agents.revoke': (hub, a) => ({ agent: revokeAgent(hub, a.agent) }),
  // Scoped keys (hub/identity/agent-keys.ts)
  'agents.add_key': (hub, a) => {
    const { key, secret } = addAgentKey(hub, a);
    return {
      key,
      secret,
      snippets: { ...connectionSnippets(`${hub.doors.baseUrl}/mcp`, key.agent, secret), ...awayOf(hub, key.agent, key.from, secret) },
      ...warnedOf(key.from),
    };
  },
  'agents.list_keys': (hub, a) => ({ keys: listAgentKeys(hub, a.agent) }),
  'agents.revoke_key': (hub, a) => ({ key: revokeScopedKey(hub, a.key_id) }),
  'agents.set_from': (hub, a) => setKeyPlaces(hub, a), // where a key may connect from (hub/identity/places.ts)
  'progress.list': (hub, a) => ({ progress: listProgress(hub, a) }),
  // owner control (hub/control/control.ts)
  'agents.pause': (hub, a) => pauseAgent(hub, a.agent, { reason: a.reason }),
  'agents.resume': (hub, a) => resumeAgent(hub, a.agent),
  'agents.pause_all': (hub, a) => pauseAll(hub, a.reason),
  'agents.resume_all': (hub) => resumeAll(hub),
  'agents.set_caps': (hub, a) => {
    const { agent, off, ...caps } = a;
    return setCaps(hub, agent, caps, off === true);
  },
  'agents.controls': (hub) => fleetControls(hub),
  'progress.activity': (hub, a) => agentActivity(hub, a.minutes ?? 30),
  'handoffs.list': (hub) => ({ handoffs: listActiveHandoffs(hub) }),
  'handoffs.hand_back': (hub, a) => handBack(hub, hub.ownerId, a),
  'tasks.set': (hub, a) => setTaskState(hub, hub.ownerId, a),
  'floor.set': (hub, a) => ownerFloor(hub, hub.ownerId, a),
  // The contract takes any string; listRequests refuses one that is not a RequestState, naming the states.
  'requests.list': (hub, a) => ({ requests: listRequests(hub, { state: a.state as RequestState | undefined }) }),
  'requests.decide': (hub, a, by) => ({ request: decideRequest(hub, hub.ownerId, a, decidedOn(by)) }),
  'cards.answer': (hub, a) => answerCard(hub, hub.ownerId, a),
  'containers.get': (hub) => ({ containers: hub.doors.containerSwitch?.state() ?? containersStateOffline(hub.db) }),
  'containers.set': async (hub, a) => ({
    containers: hub.doors.containerSwitch ? await hub.doors.containerSwitch.set(a.on) : setContainersOffline(hub, a.on),
  }),
  'files.url': (hub, a) => ownerFileUrl(hub, a.file_id, a.variant ?? 'original'),
  'files.send': (hub, a) => sendOwnerFile(hub, a),
  // review mode (hub/features/review/review.ts)
  'agents.set_review': (hub, a) => setReview(hub, a.agent, a.on),
  'held.list': (hub) => ({ items: listHeld(hub) }),
  'held.send': (hub, a) => sendHeld(hub, a.held_id, a.text),
  'held.discard': (hub, a) => discardHeld(hub, a.held_id),
  // wake runs (hub/wake-runs/wake-action.ts, hub/wake-runs/wake-views.ts)
  'wake.get': (hub, a) => ({ wake: wakeState(hub, a.agent) }),
  'wake.set': (hub, a) => ({ wake: setWakeAction(hub, a) }),
  'wake.runs': (hub, a) => ({ runs: listRuns(hub, a) }),
  'wake.stop': (hub, a) => stopRun(hub, a.agent),
  'wake.start_now': (hub, a) => startQueuedRun(hub, a.agent),
  'wake.limits.get': (hub) => ({ limits: wakeLimits(hub) }),
  'wake.limits.set': (hub, a) => ({ limits: setWakeLimits(hub, a) }),
  'wake.log': (hub, a) => runLog(hub, a.run_id, a.max_bytes),
  // the flight recorder and the cost ledger (hub/features/ledger/calls.ts)
  'ledger.calls': async (hub, a) => ({
    calls: await listToolCallsInTurns(hub, {
      agent: a.agent,
      harness: a.harness,
      tool: a.tool,
      text: a.search,
      since: a.since,
      failedOnly: a.failed_only,
      decidedBy: a.decided_by,
      limit: a.limit,
      callId: a.call_id,
      requestId: a.request_id,
    }),
  }),
  'ledger.costs': (hub, a) => ({ costs: costLedger(hub, a), today: localDay(hub.now()) }),
  'ledger.events': (hub, a) => ({ events: listPerchEvents(hub, a) }),
  // brakes (hub/control/brakes.ts)
  'conversations.resume': (hub, a) => {
    requireConversation(hub, a.conv_id);
    const resumed = resumeConversation(hub, hub.ownerId, a.conv_id);
    return { conv_id: a.conv_id, resumed, conversation: ownerConversation(hub, a.conv_id) };
  },
  // archived conversations (hub/talk/archive.ts), retention (hub/features/retention/retention.ts)
  'conversations.archive': (hub, a) => ({ ...archiveConversation(hub, a.conv_id), conversation: ownerConversation(hub, a.conv_id) }),
  'conversations.unarchive': (hub, a) => ({ ...unarchiveConversation(hub, a.conv_id), conversation: ownerConversation(hub, a.conv_id) }),
  'retention.get': (hub) => retentionStatus(hub),
  'retention.set': (hub, a) => setRetentionRule(hub, a),
  'retention.dry_run': (hub, a) => retentionDryRun(hub, a.conv_id),
  // phone approvals (hub/phone/devices.ts, hub/phone/pairing.ts)
  'phone.get': (hub) => ({ phone: getPhoneSettings(hub) }),
  'phone.set': (hub, a) => ({ phone: setPhoneSettings(hub, a) }),
  'devices.pair_start': (hub, a) => startPairing(hub, a),
  'devices.pair_status': async (hub, a) => ({ pairing: await pairingStatus(hub, a) }),
  'devices.pair_confirm': (hub, a) => confirmPairing(hub, a),
  'devices.pair_cancel': (hub, a) => ({ pairing: cancelPairing(hub, a.pairing_id) }),
  'devices.list': (hub) => ({ devices: listDevices(hub) }),
  'devices.revoke': (hub, a) => ({ device: revokeDevice(hub, a.device_id) }),
  'devices.audit': (hub, a) => ({ entries: listAudit(hub, a) }),
  'devices.test_push': async (hub, a) => ({ device: getDevice(hub, a.device_id), ...(await sendTestPush(hub, a.device_id)) }),
  'agents.set_brakes': (hub, a) => setAgentBudget(hub, a.agent, a.budget),
  'rules.list': (hub, a) => ({ rules: listPermissionRuleViews(hub, a.agent) }),
  'rules.add': (hub, a, by) => addRuleOrAnswer(hub, a, by.device ? { device: by.device } : 'laptop'),
  'rules.remove': (hub, a, by) => removePermissionRule(hub, a.rule_id, by.device ? { device: by.device } : 'laptop'),
  'rules.import': (hub, a, by) =>
    importPermissionRules(
      hub,
      a.rules.map((r) => ({ ...r, command_prefix: r.command_prefix ?? undefined, folder: r.folder ?? undefined })),
      by.device ? { device: by.device } : 'laptop',
    ),
  'rules.suggestions': (hub, a) => ({ suggestions: listRuleSuggestions(hub, a.agent) }),
  'rules.suggestion_accept': (hub, a, by) => acceptRuleSuggestion(hub, a, by.device ? { device: by.device } : 'laptop'),
  'rules.suggestion_dismiss': (hub, a) => dismissRuleSuggestion(hub, a),
};

/** The owner door serves files by link: the hub checks the link and reads the file. */
setFileReader({ verify: verifyFileToken, verifyAway: verifyAwayFileToken, read: readFile });

/** { warning } when a new key's places are kept but likely a mistake (a range covering every address), else {}. */
/** Where an owner action was called from, as a decision keeps it: the laptop, or the paired device. */
function decidedOn(by: OwnerCaller): DecidedOn {
  return by.device ? { via: 'device', device_id: by.device.id, name: by.device.name } : { via: 'laptop' };
}

function warnedOf(from: readonly string[] | undefined): { warning?: string } {
  const warning = from && placesWarning(from);
  return warning ? { warning } : {};
}

/** Snippets for a key that may connect from containers or the tailnet (shared/agents/snippets.ts awaySnippets). */
function awayOf(hub: PerchHub, agent: string, from: readonly string[] | undefined, key: string): Record<string, string> {
  const port = Number(/:(\d+)$/.exec(hub.doors.baseUrl)?.[1]) || 0;
  return from ? awaySnippets(agent, from, { port, publicUrl: publicUrl(hub) }, key) : {};
}

export function ownerActionNames(): string[] {
  return Object.keys(ownerActions);
}

/**
 * Validates and runs one owner action. Its answer (and error) is what the owner reads, over IPC and
 * HTTP alike: every string in it passes through visibleText (no bidi overrides or invisible characters).
 */
export async function runOwnerAction(hub: PerchHub, action: string, raw: unknown, by: OwnerCaller = {}): Promise<unknown> {
  try {
    return visibleDeep(await runOwnerActionRaw(hub, action, raw, by));
  } catch (err) {
    if (!isHubError(err)) throw err;
    throw new HubError(err.code, visibleText(err.message), visibleText(err.nextStep), err.details && visibleDeep(err.details));
  }
}

async function runOwnerActionRaw(hub: PerchHub, action: string, raw: unknown, by: OwnerCaller): Promise<unknown> {
  if (!Object.hasOwn(ownerActions, action)) {
    throw new HubError(
      'not_found',
      `No owner action ${JSON.stringify(action)}.`,
      'See `perch owner --help` or docs/owner-api.md for the actions.',
    );
  }
  const deep = tooDeep(raw, LIMITS.maxJsonDepth); // before zod or anything else walks it
  if (deep !== undefined) {
    throw new HubError(
      'invalid_argument',
      `Invalid input for ${action}: ${deep}: arrays and objects are nested more than ${LIMITS.maxJsonDepth} levels deep.`,
      'Nest the input less deeply.',
    );
  }
  // Standing rules read commands with the shell parser (a prompt's "always", suggestions): it loads in the background
  // after the hub starts (or here, for a perch command on the file), and these actions wait for it.
  if (action.startsWith('rules.')) await ensureShellParser();
  const parsed = OWNER_ACTIONS[action as OwnerAction].input.safeParse(raw ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`).join('; ');
    throw new HubError('invalid_argument', `Invalid input for ${action}: ${detail}`, `Check the input of ${action} in docs/owner-api.md.`);
  }
  try {
    const fn = ownerActions[action as OwnerAction] as (hub: PerchHub, input: unknown, by: OwnerCaller) => unknown;
    return await fn(hub, parsed.data, by);
  } catch (err) {
    // A full or failing disk: storage_full (nothing was saved), not a failure of the hub.
    throw hub.storageFailure(err) ?? err;
  }
}
