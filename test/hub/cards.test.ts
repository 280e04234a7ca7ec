// Cards: send_card with full validation, and the owner's answerCard reaching the sender.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, type TestHub } from '../support/helpers';
import { callAgentTool } from '../../src/main/hub/tools/tools';
import { TOOL_BY_NAME, type ToolName } from '../../src/shared/api/catalog';
import { HubError, type ErrorCode } from '../../src/shared/errors';
import { LIMITS } from '../../src/shared/limits';
import { answerCard, listCardResponses, validateCard } from '../../src/main/hub/features/cards/cards';
import { getHistory } from '../../src/main/hub/talk/messages';
import { getUpdates } from '../../src/main/hub/talk/delivery';
import { conversationById } from '../../src/main/store/tables/talk/conversations';

type R = Record<string, any>;

function call(t: TestHub, agentId: string, name: ToolName, args: Record<string, unknown>): Promise<R> {
  return callAgentTool(t.hub, agentId, name, TOOL_BY_NAME.get(name)!.input.parse(args)) as Promise<R>;
}

function isCode(code: ErrorCode, message?: string | RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof HubError, `expected a HubError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return true;
  };
}

async function setup(t: TestHub) {
  const a = t.agent('carder');
  const dm = await call(t, a.id, 'open_direct', { user: t.hub.owner.name });
  return { a, convId: dm.conversation.conv_id as string };
}

const GOOD_CARD = {
  title: 'Release 2.1',
  blocks: [
    { type: 'text', text: 'Ready to ship release 2.1?' },
    {
      type: 'buttons',
      id: 'ship',
      options: [
        { id: 'yes', label: 'Ship it', style: 'primary' },
        { id: 'no', label: 'Hold', style: 'danger' },
      ],
    },
    {
      type: 'form',
      id: 'details',
      submit: 'Send',
      fields: [
        { id: 'note', label: 'Note', type: 'text', max: 10 },
        { id: 'budget', label: 'Budget', type: 'number', max: 100, required: true },
        { id: 'region', label: 'Region', type: 'select', options: ['eu', 'us'] },
        { id: 'agree', label: 'I agree', type: 'checkbox' },
      ],
    },
  ],
};

function cardMessage(t: TestHub, convId: string, msgId: string) {
  const ev = getHistory(t.hub, t.hub.ownerId, convId, {}, true).events.find(
    (e) => e.type === 'message.created' && e.message?.msg_id === msgId,
  );
  assert.ok(ev?.message);
  return ev.message;
}

test('send_card stores a card message with payload {card, responses: [], closed: false}', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const s = await call(t, a.id, 'send_card', { conv_id: convId, text: 'Ship release 2.1?', card: GOOD_CARD });
    const msg = cardMessage(t, convId, s.msg_id);
    assert.equal(msg.kind, 'card');
    assert.equal(msg.text, 'Ship release 2.1?');
    assert.deepEqual(msg.payload, { card: GOOD_CARD, responses: [], closed: false });
  });
});

const MALFORMED: Array<[string, unknown, string]> = [
  [
    'field type',
    {
      blocks: [
        { type: 'text', text: 'hi' },
        { type: 'form', id: 'f', submit: 'Go', fields: [{ id: 'x', label: 'X', type: 'date' }] },
      ],
    },
    'card.blocks[1].fields[0].type: must be one of text, number, select, checkbox',
  ],
  ['block type', { blocks: [{ type: 'image', url: 'x' }] }, 'card.blocks[0].type: must be one of text, buttons, form'],
  [
    'bad block id',
    { blocks: [{ type: 'buttons', id: 'Ship It', options: [{ id: 'a', label: 'A' }] }] },
    'card.blocks[0].id: must be 1-64 characters a-z, 0-9, _ or -',
  ],
  [
    'too long id',
    { blocks: [{ type: 'buttons', id: 'a'.repeat(65), options: [{ id: 'a', label: 'A' }] }] },
    'card.blocks[0].id: must be 1-64 characters a-z, 0-9, _ or -',
  ],
  [
    'duplicate block id',
    {
      blocks: [
        { type: 'buttons', id: 'b', options: [{ id: 'a', label: 'A' }] },
        { type: 'form', id: 'b', submit: 'Go', fields: [{ id: 'x', label: 'X', type: 'text' }] },
      ],
    },
    'card.blocks[1].id: "b" is used twice in the card; ids must be unique',
  ],
  [
    'duplicate option id',
    {
      blocks: [
        {
          type: 'buttons',
          id: 'b',
          options: [
            { id: 'a', label: 'A' },
            { id: 'a', label: 'B' },
          ],
        },
      ],
    },
    'card.blocks[0].options[1].id: "a" is used twice in this block; ids must be unique',
  ],
  [
    'duplicate field id',
    {
      blocks: [
        {
          type: 'form',
          id: 'f',
          submit: 'Go',
          fields: [
            { id: 'x', label: 'X', type: 'text' },
            { id: 'x', label: 'Y', type: 'number' },
          ],
        },
      ],
    },
    'card.blocks[0].fields[1].id: "x" is used twice in this form; ids must be unique',
  ],
  [
    'button style',
    {
      blocks: [
        {
          type: 'buttons',
          id: 'b',
          options: [
            { id: 'a', label: 'A' },
            { id: 'c', label: 'C', style: 'green' },
          ],
        },
      ],
    },
    'card.blocks[0].options[1].style: must be one of primary, danger',
  ],
  [
    'select without options',
    { blocks: [{ type: 'form', id: 'f', submit: 'Go', fields: [{ id: 's', label: 'S', type: 'select' }] }] },
    'card.blocks[0].fields[0].options: is required for a select field',
  ],
  [
    'options on a text field',
    { blocks: [{ type: 'form', id: 'f', submit: 'Go', fields: [{ id: 's', label: 'S', type: 'text', options: ['a'] }] }] },
    'card.blocks[0].fields[0].options: only a select field takes options (this field is text)',
  ],
  [
    'max on a checkbox',
    { blocks: [{ type: 'form', id: 'f', submit: 'Go', fields: [{ id: 'c', label: 'C', type: 'checkbox', max: 3 }] }] },
    'card.blocks[0].fields[0].max: only text and number fields take max (this field is checkbox)',
  ],
  [
    'missing submit',
    { blocks: [{ type: 'form', id: 'f', fields: [{ id: 'x', label: 'X', type: 'text' }] }] },
    'card.blocks[0].submit: is required',
  ],
  ['empty buttons', { blocks: [{ type: 'buttons', id: 'b', options: [] }] }, 'card.blocks[0].options: must not be empty'],
  ['no blocks', { blocks: [] }, 'card.blocks: must not be empty'],
  ['text block without text', { blocks: [{ type: 'text' }] }, 'card.blocks[0].text: is required'],
  [
    'unknown card field',
    { blocks: [{ type: 'text', text: 'x' }], color: 'red' },
    'card.color: unknown field (allowed: title, blocks, once)',
  ],
  [
    'unknown block field',
    { blocks: [{ type: 'text', text: 'x', html: '<b>' }] },
    'card.blocks[0].html: unknown field (allowed: type, text)',
  ],
  [
    'required not boolean',
    { blocks: [{ type: 'form', id: 'f', submit: 'Go', fields: [{ id: 'x', label: 'X', type: 'text', required: 'yes' }] }] },
    'card.blocks[0].fields[0].required: must be true or false',
  ],
  ['block not an object', { blocks: ['hello'] }, 'card.blocks[0]: must be an object, not string'],
];

test('malformed cards are refused with the exact path, and nothing is stored', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const before = conversationById(t.hub.db, convId)!.last_seq;
    for (const [what, card, message] of MALFORMED) {
      await assert.rejects(
        call(t, a.id, 'send_card', { conv_id: convId, text: 'fallback', card }),
        isCode('invalid_argument', message),
        what,
      );
    }
    assert.equal(conversationById(t.hub.db, convId)!.last_seq, before, 'no message or event was written');
    // Top-level shapes the tool schema lets through to callers of the hub directly.
    assert.throws(() => validateCard('nope'), isCode('invalid_argument', 'card: must be an object, not string'));
    assert.throws(
      () => validateCard({ blocks: [{ type: 'text', text: 'x' }], once: 'yes' }),
      isCode('invalid_argument', 'card.once: must be true or false'),
    );
  });
});

test('an oversize card is refused with too_large', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const blocks = Array.from({ length: 5 }, () => ({ type: 'text', text: 'x'.repeat(LIMITS.maxCardBytes / 4) }));
    await assert.rejects(
      call(t, a.id, 'send_card', { conv_id: convId, text: 'big', card: { blocks } }),
      isCode('too_large', /^card: is \d+ bytes/),
    );
  });
});

test('a once card closes at its first response; a second answer is refused', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const s = await call(t, a.id, 'send_card', {
      conv_id: convId,
      text: 'Approve?',
      card: {
        once: true,
        blocks: [
          {
            type: 'buttons',
            id: 'go',
            options: [
              { id: 'yes', label: 'Yes' },
              { id: 'no', label: 'No' },
            ],
          },
        ],
      },
    });
    const first = answerCard(t.hub, t.hub.ownerId, { msg_id: s.msg_id, block_id: 'go', value: 'yes' });
    assert.equal(first.closed, true);
    assert.throws(() => answerCard(t.hub, t.hub.ownerId, { msg_id: s.msg_id, block_id: 'go', value: 'no' }), isCode('conflict', /closed/));
    const payload = cardMessage(t, convId, s.msg_id).payload as R;
    assert.equal(payload.closed, true);
    assert.equal(payload.responses.length, 1);
    assert.equal(payload.responses[0].value, 'yes');
    assert.equal(listCardResponses(t.hub, s.msg_id).length, 1, 'one response stored');
  });
});

test('a card response reaches the sender in get_updates, for_you, and wakes its waiting call', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const s = await call(t, a.id, 'send_card', { conv_id: convId, text: 'Ship?', card: GOOD_CARD });
    await getUpdates(t.hub, a.id, {});
    setTimeout(() => answerCard(t.hub, t.hub.ownerId, { msg_id: s.msg_id, block_id: 'ship', value: 'yes' }), 30);
    const started = performance.now();
    const u = await call(t, a.id, 'get_updates', { wait_secs: 5 });
    assert.ok(performance.now() - started < 1000, 'woken by the response');
    const ev = (u.events as R[]).find((e) => e.type === 'card.response');
    assert.ok(ev, 'card.response is in get_updates');
    assert.equal(ev.for_you, true);
    assert.equal(ev.message.msg_id, s.msg_id, 'tied to the card message');
    assert.deepEqual(ev.data, { msg_id: s.msg_id, block_id: 'ship', value: 'yes', by: t.hub.ref(t.hub.ownerId) });
    // A card without once stays open: a second answer is taken.
    const second = answerCard(t.hub, t.hub.ownerId, { msg_id: s.msg_id, block_id: 'ship', value: 'no' });
    assert.equal(second.closed, false);
    assert.equal(second.response_count, 2);
  });
});

test('form answers are validated against the fields', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const s = await call(t, a.id, 'send_card', { conv_id: convId, text: 'Details?', card: GOOD_CARD });
    const ans =
      (value: unknown, block_id = 'details') =>
      () =>
        answerCard(t.hub, t.hub.ownerId, { msg_id: s.msg_id, block_id, value });
    assert.throws(ans({ note: 'hi' }), isCode('invalid_argument', 'value.budget: "Budget" is required'));
    assert.throws(ans({ budget: 101 }), isCode('invalid_argument', 'value.budget: is 101; at most 100'));
    assert.throws(ans({ budget: 'lots' }), isCode('invalid_argument', 'value.budget: must be a number'));
    assert.throws(ans({ budget: 5, note: 'far too long text' }), isCode('invalid_argument', 'value.note: is 17 characters; at most 10'));
    assert.throws(ans({ budget: 5, region: 'asia' }), isCode('invalid_argument', 'value.region: must be one of "eu", "us"'));
    assert.throws(ans({ budget: 5, agree: 'yes' }), isCode('invalid_argument', 'value.agree: must be true or false'));
    assert.throws(ans({ budget: 5, color: 'red' }), isCode('invalid_argument', /^value\.color: no such field/));
    assert.throws(ans('yes'), isCode('invalid_argument', 'value: must be an object of field values, not string'));
    assert.throws(ans('maybe', 'ship'), isCode('invalid_argument', 'value: must be one of yes, no'));
    assert.throws(ans('yes', 'nope'), isCode('invalid_argument', /^block_id: no buttons or form block "nope"/));
    assert.equal(listCardResponses(t.hub, s.msg_id).length, 0, 'refused answers store nothing');

    const ok = answerCard(t.hub, t.hub.ownerId, {
      msg_id: s.msg_id,
      block_id: 'details',
      value: { budget: '42', note: 'ok', region: 'eu', agree: true },
    });
    assert.deepEqual(ok.value, { note: 'ok', budget: 42, region: 'eu', agree: true });
    const payload = cardMessage(t, convId, s.msg_id).payload as R;
    assert.equal(payload.closed, false);
    assert.deepEqual(payload.responses[0].value, { note: 'ok', budget: 42, region: 'eu', agree: true });
    assert.equal(payload.responses[0].by.id, t.hub.ownerId);
  });
});

test('agents cannot answer cards, and only card messages can be answered', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const s = await call(t, a.id, 'send_card', { conv_id: convId, text: 'Ship?', card: GOOD_CARD });
    assert.throws(() => answerCard(t.hub, a.id, { msg_id: s.msg_id, block_id: 'ship', value: 'yes' }), isCode('forbidden'));
    const m = await call(t, a.id, 'send_message', { conv_id: convId, text: 'plain' });
    assert.throws(
      () => answerCard(t.hub, t.hub.ownerId, { msg_id: m.msg_id, block_id: 'ship', value: 'yes' }),
      isCode('invalid_argument', /not a card/),
    );
    assert.throws(() => answerCard(t.hub, t.hub.ownerId, { msg_id: 'm_missing', block_id: 'ship', value: 'yes' }), isCode('not_found'));
  });
});
