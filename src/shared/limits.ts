// Every limit of the hub, defined once. Enforced where noted; whoami reports them.
export const LIMITS = {
  /** JSON-RPC body of an ordinary MCP request (bytes). Enforced at the MCP door (mcp/endpoint). */
  maxBodyBytes: 1024 * 1024,
  /** JSON-RPC body of a request carrying file content (send_file): 16 MiB decoded, base64 is 4/3 larger. */
  maxFileBodyBytes: Math.ceil((16 * 1024 * 1024 * 4) / 3) + 64 * 1024,
  /** Decoded file content (bytes). Enforced in hub/features/files. */
  maxFileBytes: 16 * 1024 * 1024,
  /**
   * Images (JPEG, PNG, GIF, WebP) are decoded and re-encoded by the hub, which costs CPU for every pixel, so
   * their size is bounded by pixels as well as bytes (a small file can unpack to many frames). Enforced in
   * hub/features/files from the image's header, before any decoding: past a limit send_file is too_large.
   * maxImagePixels: one frame (width × height); maxImageFrames: frames of an animated GIF or WebP;
   * maxAnimationPixels: an animated image's pixels summed over all its frames.
   */
  maxImagePixels: 100_000_000,
  maxImageFrames: 100,
  maxAnimationPixels: 10_000_000,
  /**
   * Image jobs (decode, clean, thumbnail) running at once, per agent and in the whole hub. A job over either
   * waits its turn (first come, first served) in a queue of at most imageQueuePerAgent jobs per agent and
   * imageQueuePerHub in all; past that send_file is refused with rate_limited before any work is done.
   */
  imageJobsPerAgent: 1,
  imageJobsPerHub: 2,
  imageQueuePerAgent: 2,
  imageQueuePerHub: 16,
  /** Message text (characters). */
  maxTextChars: 32 * 1024,
  /** Title of a group, task, request or card (characters). */
  maxTitleChars: 200,
  /** request_human context, serialized JSON (bytes). */
  maxContextBytes: 32 * 1024,
  /** A card, serialized JSON (bytes). */
  maxCardBytes: 32 * 1024,
  /** progress data, serialized JSON (bytes). */
  maxProgressDataBytes: 8 * 1024,
  /** progress events per agent per second. */
  progressPerSecond: 10,
  /**
   * Arrays and objects inside each other in one tool call's arguments (or one owner action's input),
   * the arguments object itself counting as 1. Enforced at the MCP door and the owner API, before
   * anything walks the value: deeper input is invalid_argument.
   */
  maxJsonDepth: 64,
  /** state_put value, serialized JSON (bytes). */
  maxStateValueBytes: 1024 * 1024,
  /** state key length (bytes). */
  maxStateKeyBytes: 512,
  /** Summary text (characters). */
  maxSummaryChars: 64 * 1024,
  /** Items in to / topics / refs / sources / members / assignees / options. */
  maxListItems: 50,
  /** Per-agent request rate: sustained calls per second and burst. */
  ratePerSecond: 200,
  rateBurst: 400,
  /** get_updates page. */
  updatesDefaultLimit: 100,
  updatesMaxLimit: 500,
  /** Longest wait_secs of get_updates / get_request the contract accepts (seconds). */
  maxWaitSecs: 60,
  /**
   * A wait answers by then at the latest (seconds), with nothing new if nothing came: MCP clients (Claude Code,
   * the official SDKs) give up on a call after 60 s, so a wait of the full maxWaitSecs would end in their
   * timeout error instead of an answer. "Up to wait_secs" allows answering early.
   */
  waitAnswerSecs: 50,
  /** get_history / get_thread / list_pins page. */
  historyDefaultLimit: 50,
  historyMaxLimit: 200,
  /** search. */
  searchDefaultLimit: 20,
  searchMaxLimit: 100,
  /** search without conv_id looks at this many most recently active conversations. */
  searchRecentConversations: 20,
  /** request_human ttl (seconds): default one day, at most 30 days. */
  requestDefaultTtlSecs: 24 * 60 * 60,
  requestMaxTtlSecs: 30 * 24 * 60 * 60,
  /** floor_grant ttl (seconds). */
  floorDefaultTtlSecs: 300,
  floorMaxTtlSecs: 24 * 60 * 60,
  /** file_url link lifetime (seconds). */
  fileUrlTtlSecs: 300,
  /** get_context default budget (tokens; estimate = ceil(chars / 4)). */
  contextDefaultTokens: 4000,
  contextMaxTokens: 200_000,
  /** Waits an agent may hold at once. */
  maxWaitsPerAgent: 8,
} as const;

export type Limits = typeof LIMITS;
