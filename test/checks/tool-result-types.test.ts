// A handler answers its tool's declared result (the output schema in src/shared/api/catalog.ts): a handler answering
// another shape does not compile. `npm run typecheck` checks this file (tsconfig.json includes test/): each expected
// error marked below must occur, or the typecheck fails. The test run checks the same values at run time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolHandler } from '../../src/main/hub/identity/tool-handler';
import { TOOL_BY_NAME, type ToolResult } from '../../src/shared/api/catalog';

const recalled: ToolResult<'recall_message'> = { msg_id: 'm_1', conv_id: 'c_1', seq: 3, recalled: true };
const held = { held: true as const, held_id: 'h_1', conv_id: 'c_1', created_at: 1, next_step: 'Wait for your owner.' };

export const handlers = {
  right: { run: () => recalled } satisfies ToolHandler<'recall_message'>,
  heldSend: { run: () => ({ ...held, woken: [] }) } satisfies ToolHandler<'send_message'>,
  waits: { run: async () => ({ events: [], ack: 'a', more: false, woken: false }) } satisfies ToolHandler<'get_updates'>,
  // @ts-expect-error a declared field is missing (recalled)
  missing: { run: () => ({ msg_id: 'm_1', conv_id: 'c_1', seq: 3 }) } satisfies ToolHandler<'recall_message'>,
  // @ts-expect-error a field of another type (seq is a number)
  wrongType: { run: () => ({ ...recalled, seq: '3' }) } satisfies ToolHandler<'recall_message'>,
  nested: {
    // @ts-expect-error a nested field out of its enum (a user is human or agent)
    run: () => ({ user: { id: 'u', name: 'n', kind: 'robot', description: '', is_owner: false } }),
  } satisfies ToolHandler<'find_user'>,
  // @ts-expect-error a waiting read answering the wrong shape later
  asyncWrong: { run: async () => ({ events: [], more: false }) } satisfies ToolHandler<'get_updates'>,
  // @ts-expect-error held is an answer only of the writes review mode holds
  heldRecall: { run: () => held } satisfies ToolHandler<'recall_message'>,
};

test("a handler answers its tool's declared result: the shapes that compile pass the output schema, the ones that do not compile fail it", async () => {
  const parse = (name: string, v: unknown) => TOOL_BY_NAME.get(name)!.output.safeParse(v).success;
  assert.equal(parse('recall_message', handlers.right.run()), true);
  assert.equal(parse('send_message', handlers.heldSend.run()), true);
  assert.equal(parse('get_updates', await handlers.waits.run()), true);
  assert.equal(parse('recall_message', handlers.missing.run()), false);
  assert.equal(parse('recall_message', handlers.wrongType.run()), false);
  assert.equal(parse('find_user', handlers.nested.run()), false);
  assert.equal(parse('get_updates', await handlers.asyncWrong.run()), false);
  assert.equal(parse('recall_message', handlers.heldRecall.run()), false);
});
