// POST /hook/<harness>/<event> (gemini: its own door, gemini.ts; claude-code, codex, copilot: permission-request, pre-tool-use, notification, stop,
// session-start, session-end; cursor: permission-request, for its beforeShellExecution and beforeMCPExecution hooks, and
// post-tool-use, for its afterShellExecution, afterMCPExecution and afterFileEdit hooks: ./cursor.ts;
// opencode: tool-before, tool-after, event, permission-asked, for the plugin perch connect writes: ./opencode.ts)
// takes the hook input exactly as the harness writes it and answers exactly the JSON output the harness reads
// (shared/agents/hook-wire.ts, harnesses/copilot-wire.ts), so Claude Code's and GitHub Copilot CLI's HTTP hooks post here directly, one request, no `perch` process
// (Codex's and Cursor's command hooks with curl, or `perch hook`, which posts its stdin here unchanged). permission-request builds the PromptFiling `perch hook` would send and files it through the
// same path as POST /hook (request_human marked door 'hook': standing rules, the Approvals inbox, phone push), waits
// for the decision up to ?timeout=SECS (default 540) and withdraws the prompt when the caller's connection closes
// first. A paused agent's prompt is denied and its PreToolUse blocked. No decision: 200 {} (the harness's own dialog
// decides; the reason in the perch-hook-note header; Cursor: {"permission":"ask"} with the same header), also for a
// tool input nested deeper than LIMITS.maxJsonDepth. Input that is not the event's: 400 with one line. Cursor, once
// its key is accepted, gets every refusal (405, 413, 415, 400, 403 read-only, 429, a failure) as that "ask" ({} at
// post-tool-use, whose answer Cursor does not read).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerchHub as Hub } from '../../hub/services';
import type { RequestPlace } from '../../../shared/agents/places';
import { LIMITS } from '../../../shared/limits';
import { cursorMcpToolName } from '../cursor-tool-name';
import { answeredByAnother } from '../session-owner';
import {
  EVENT_NAME,
  HOOK_DOOR_EVENTS,
  StepAside,
  cursorDecisionJson,
  decisionJson,
  filingOf,
  noDecisionJson,
  parseCursorInput,
  parseEventInput,
  parseHookInput,
  preToolUseDenyJson,
  reportOf,
  type HookDoorHarness,
  type StatusHook,
} from '../../../shared/agents/hook-wire';
import {
  copilotDecisionJson,
  copilotPreToolDenyJson,
  isOwnCopilotTool,
  parseCopilotEventInput,
  parseCopilotPermissionInput,
} from '../../../shared/agents/harnesses/copilot-wire';
import { openCodeAnswer } from './opencode';
import { openCodeDecisionJson, parseOpenCodePermissionInput, type OpenCodeDoorEvent } from '../../../shared/agents/harnesses/opencode-wire';
import { noteHarness, notePermissionMode, ownServerOf, pauseExempt } from '../../hub/control/harness';
import { isPaused } from '../../hub/control/control';
import { BodyTooLarge, newRequestId, readBody, sendInternalError } from '../../http-util';
import { tooDeep } from '../../../shared/text/json-depth';
import type { RateLimiter } from '../../hub/core/rate-limit';
import { promptJoinKey } from '../../hub/features/requests/prompt-joins';
import { recordPromptDecision } from '../../hub/features/ledger/decisions';
import { isOwnCursorTool, type HarnessName } from '../../../shared/agents/harness';
import { admit, refuse, sendOutput, type Refuse } from './admit';
import { reportOfObject } from './report';
import { decide, nobody, recordAnswer, type Verdict } from './decide';
import { answerGemini } from './gemini';
import { CURSOR_RESULT_ANSWER, answerCursorResult, cursorAskOf } from './cursor';
import type { GeminiDoorEvent } from '../../../shared/agents/harnesses/gemini-wire';

/** A harness's hook input may carry a whole file (a Write's content); what is filed is cut (shared/api/prompt-filing.ts). */
const MAX_INPUT_BYTES = 4 * 1024 * 1024;
/** How long a permission-request waits for the owner unless ?timeout= says: below the harnesses' 600 s hook timeout. */
export const DEFAULT_DECISION_SECS = 540;
const MAX_DECISION_SECS = 24 * 60 * 60;

/** The harness and event of /hook/<harness>/<event>, or why the path names none. */
export function parseHookDoorPath(path: string): { harness: HookDoorHarness; event: string } | string {
  const m = /^\/hook\/([^/]+)\/([^/]+)\/?$/.exec(path);
  const all = Object.keys(HOOK_DOOR_EVENTS).join(', ');
  if (!m) return `POST /hook/<harness>/<event>, harness one of ${all}`;
  if (!Object.hasOwn(HOOK_DOOR_EVENTS, m[1]!)) return `no hook door for harness ${JSON.stringify(m[1]!.slice(0, 40))}: one of ${all}`;
  const harness = m[1]! as HookDoorHarness;
  const events: readonly string[] = HOOK_DOOR_EVENTS[harness];
  if (!events.includes(m[2]!)) return `no ${harness} hook ${JSON.stringify(m[2]!.slice(0, 40))}: one of ${events.join(', ')}`;
  return { harness, event: m[2]! };
}

/** ?timeout=SECS of a permission-request (whole seconds, 1 to a day), or why not. */
function timeoutOf(url: string | undefined): number | string {
  const t = new URL(url ?? '/', 'http://127.0.0.1').searchParams.get('timeout');
  if (t === null) return DEFAULT_DECISION_SECS;
  const n = Number(t);
  return Number.isInteger(n) && n >= 1 && n <= MAX_DECISION_SECS
    ? n
    : `timeout must be whole seconds from 1 to ${MAX_DECISION_SECS}, not ${JSON.stringify(t.slice(0, 40))}`;
}

export function harnessDoor(hub: Hub, req: IncomingMessage, res: ServerResponse, at: RequestPlace | undefined, limiter: RateLimiter): void {
  const route = parseHookDoorPath((req.url ?? '').split('?')[0]!);
  if (typeof route === 'string') {
    req.resume();
    return refuse(res, 404, 'not_found', route);
  }
  // Cursor reads only a permission: once the key is known, whatever the door cannot do is "ask" (its own prompt
  // decides), never a status curl -f would swallow. The other harnesses get the refusal.
  const cursor = route.harness === 'cursor';
  const cursorNone = route.event === 'post-tool-use' ? CURSOR_RESULT_ANSWER : cursorDecisionJson(undefined);
  const refuseHere: Refuse = (status, code, message, headers) =>
    cursor ? sendOutput(res, cursorNone, message) : refuse(res, status, code, message, headers);
  const who = admit(hub, req, res, at, refuseHere);
  if (!who) return;
  const timeout = timeoutOf(req.url);
  if (typeof timeout === 'string') {
    req.resume();
    return refuseHere(400, 'invalid_input', timeout);
  }
  // The caller goes away (the harness answered in its own dialog, or gave up): the waiting prompt is withdrawn.
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  readBody(req, MAX_INPUT_BYTES)
    .then(
      async (buf) => {
        const text = buf.toString('utf8');
        try {
          // A wake run's hook (its own key, from the run's own --settings) is that run's agent's session, whatever
          // connections are recorded for its folder: it always answers.
          const other = who.kind === 'run' ? undefined : answeredByAnother(hub, route.harness, who.agentId, text);
          if (other !== undefined)
            return sendOutput(
              res,
              cursor ? cursorNone : '{}',
              `${other} answers for sessions in this folder (perch connect); this hook stays silent`,
            );
          if (route.harness === 'gemini') {
            const ask = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('ask') === '1';
            const hook = { who, at, event: route.event as GeminiDoorEvent, text, ask, timeoutSecs: timeout, signal: gone.signal, limiter };
            return await answerGemini(hub, res, hook, (json, note) => sendOutput(res, json, note));
          }
          if (cursor && route.event === 'post-tool-use')
            return sendOutput(res, CURSOR_RESULT_ANSWER, answerCursorResult(hub, who.agentId, text));
          const opencode = route.harness === 'opencode';
          if (opencode && route.event !== 'permission-asked')
            return sendOutput(
              res,
              await openCodeAnswer(hub, who.agentId, route.event as Exclude<OpenCodeDoorEvent, 'permission-asked'>, text),
            );
          if (route.event !== 'permission-request' && !opencode)
            return sendOutput(res, answerStatus(hub, who.agentId, route.harness, route.event as StatusHook, text));
          const prompt = cursor
            ? parseCursorInput(text, cursorMcpToolName)
            : {
                input:
                  route.harness === 'copilot'
                    ? parseCopilotPermissionInput(text)
                    : opencode
                      ? parseOpenCodePermissionInput(text)
                      : parseHookInput(text),
                extra: {},
              };
          // Each Cursor prompt opens its call in the flight recorder, which its after hook's result closes (./cursor.ts).
          const cursorAsk = cursor && 'call' in prompt ? cursorAskOf(who.agentId, prompt.call, prompt.input) : undefined;
          const cursorCall = cursorAsk ? hub.services.cursorCalls.openCall(cursorAsk, prompt.input.tool_name) : undefined;
          // Copilot asks even for the agent's own Perch tools, which the hub governs call by call itself (Claude Code's
          // connect-written allow rule mcp__perch-NAME, at the door): allowed, nothing filed.
          const own = ownServerOf(hub, who.agentId).name;
          if (route.harness === 'copilot' && isOwnCopilotTool(prompt.input.tool_name, own))
            return sendOutput(res, copilotDecisionJson({ behavior: 'allow' }), `a tool of ${own}, Perch's own: the hub governs its calls`);
          // Cursor's beforeMCPExecution asks for every MCP call, the agent's own Perch server too, and its only allowlist
          // file would replace the owner's: a call to this hub's own /mcp is allowed here, unless the agent is paused
          // (then the pause decides below, leaving its whoami / get_updates to Cursor's own prompt).
          if (
            cursor &&
            isOwnCursorTool(prompt.input.tool_name, ownServerOf(hub, who.agentId)) &&
            (!isPaused(hub, who.agentId).paused || pauseExempt(hub, who.agentId, prompt.input.tool_name))
          )
            return sendOutput(
              res,
              cursorDecisionJson({ behavior: 'allow' }),
              "a tool of this hub's own MCP server: the hub governs its calls",
            );
          if (limiter.take(who.agentId) > 0)
            return refuseHere(429, 'rate_limited', "Too many permission prompts at once; the harness's own dialog decides this one.");
          // An input nested past what anything here walks safely is not shown, so not decided: the harness's dialog decides.
          const deep = tooDeep(prompt.input.tool_input, LIMITS.maxJsonDepth);
          const v: Verdict =
            deep !== undefined
              ? {
                  decision: `the tool input nests more than ${LIMITS.maxJsonDepth} levels deep (at ${deep}); Perch cannot show it whole, the terminal dialog decides`,
                }
              : await decide(hub, who, at, filingOf(prompt.input, route.harness, prompt.extra), timeout, gone.signal, {
                  joinKey: promptJoinKey(route.harness, who.agentId, prompt.input as unknown as Record<string, unknown>),
                });
          const d = v.decision;
          // No decision: Claude Code, Codex and Copilot read {} as none; Cursor reads "ask" (its own prompt decides).
          if (cursor) sendOutput(res, cursorDecisionJson(typeof d === 'string' ? undefined : d), typeof d === 'string' ? d : undefined);
          else if (opencode)
            sendOutput(res, openCodeDecisionJson(typeof d === 'string' ? undefined : d), typeof d === 'string' ? d : undefined);
          else if (route.harness === 'copilot')
            sendOutput(res, copilotDecisionJson(typeof d === 'string' ? undefined : d), typeof d === 'string' ? d : undefined);
          else if (typeof d === 'string') sendOutput(res, noDecisionJson(d, v.title, route.harness === 'claude-code'), d);
          else sendOutput(res, decisionJson(d));
          if (v.requestId) recordAnswer(hub, res, v.requestId);
          // A call Perch denied never runs: no after hook is to close it.
          if (cursorAsk && cursorCall && typeof d !== 'string' && d.behavior === 'deny')
            hub.services.cursorCalls.forget(cursorAsk, cursorCall);
          const ask = cursorCall ? { ...prompt.input, tool_use_id: cursorCall, turn: cursorAsk?.generation } : prompt.input;
          recordPromptDecision(hub, who.agentId, route.harness, ask, v.perch ?? nobody(d, v.cardId));
        } catch (e) {
          if (e instanceof StepAside) return refuseHere(400, 'invalid_input', e.message);
          throw e;
        }
      },
      (err) => {
        if (err instanceof BodyTooLarge) return refuseHere(413, 'too_large', `The body is over ${MAX_INPUT_BYTES} bytes.`);
        if (!res.destroyed) refuseHere(400, 'invalid_input', 'Bad request body.');
      },
    )
    .catch((err: unknown) => {
      if (!cursor) return sendInternalError(res, err, 'hook request');
      const id = newRequestId();
      process.stderr.write(`perch: ${id} hook request failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      sendOutput(res, cursorNone, `the hub failed on this request (request ${id}); Cursor's own prompt decides`);
    });
}

/** PreToolUse, Notification, Stop, SessionStart, SessionEnd: the status is noted; a paused agent's tool is blocked. */
function answerStatus(hub: Hub, agentId: string, harness: HookDoorHarness, event: StatusHook, text: string): string {
  const copilot = harness === 'copilot';
  const input = copilot ? parseCopilotEventInput(text, event) : parseEventInput(text, EVENT_NAME[event]);
  const report = reportOfObject(reportOf(event, input, harness as HarnessName));
  if (typeof report === 'string') throw new StepAside(report);
  const answer = noteHarness(hub, agentId, report);
  if (event === 'pre-tool-use') hub.services.toolUseIds.note(agentId, harness, input); // which call a prompt is (the ledger)
  notePermissionMode(hub, agentId, harness as HarnessName, input.permission_mode); // a mode that never asks Perch: the owner is told
  if (event !== 'pre-tool-use' || !answer.paused) return '{}';
  // How the paused agent waits for the owner: its own Perch server's get_updates and whoami, no other server's.
  if (pauseExempt(hub, agentId, typeof input.tool_name === 'string' ? input.tool_name : undefined)) return '{}';
  const reason = answer.message ?? 'Paused in Perch by the owner. Wait for the owner to resume this agent.';
  return copilot ? copilotPreToolDenyJson(reason) : preToolUseDenyJson(reason);
}
