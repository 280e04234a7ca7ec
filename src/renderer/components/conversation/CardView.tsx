// A card an agent sent: text blocks, buttons and forms (text, number, select, checkbox; required; max).
// A `once` card is closed after its first answer and its controls are disabled.
import { useId, useState, type FormEvent } from 'react';
import type { CardBlock, CardPayload, CardResponse, FormField, Message } from '../../model';
import { useSession } from '../../stores/session';
import { answerCard } from '../../sync';
import { timeOf } from '../../format';
import { ItemBoundary, Markdown } from '../common';
import { Icon } from '../Icon';

export function CardView({ msg, payload }: { msg: Message; payload: CardPayload }) {
  const ownerId = useSession((s) => s.info?.owner.id);
  const { card, closed, responses } = payload;
  const count = payload.response_count ?? responses.length;
  return (
    <section className={`card ${closed ? 'card-closed' : ''}`} aria-label={`Card${card.title ? `: ${card.title}` : ''}`}>
      {card.title && <h3 className="card-title">{card.title}</h3>}
      {card.blocks.map((b, i) => (
        <ItemBoundary
          key={b.type === 'text' ? `t${i}` : b.id}
          what="part of the card"
          raw={b.type === 'text' ? b.text : JSON.stringify(b, null, 2)}
        >
          <Block msg={msg} block={b} closed={closed} responses={responses} />
        </ItemBoundary>
      ))}
      {count > 0 && (
        <footer className="card-foot">
          {closed ? (
            <>
              <Icon name="lock" size={12} /> Closed ·{' '}
            </>
          ) : (
            ''
          )}
          {count} response{count === 1 ? '' : 's'}
          {responses.length > 0 && (
            <ul className="card-responses">
              {responses.slice(-5).map((r, i) => (
                <li key={`${r.at}-${i}`}>
                  <strong>{r.by.id === ownerId ? 'You' : r.by.name}</strong> {describeResponse(card.blocks, r)}{' '}
                  <span className="muted">{timeOf(r.at)}</span>
                </li>
              ))}
            </ul>
          )}
        </footer>
      )}
      {card.once && !closed && <p className="muted small">One answer closes this card.</p>}
    </section>
  );
}

function describeResponse(blocks: CardBlock[], r: CardResponse): string {
  const b = blocks.find((x) => x.type !== 'text' && x.id === r.block_id);
  if (b?.type === 'buttons') return `chose “${b.options.find((o) => o.id === r.value)?.label ?? String(r.value)}”`;
  if (b?.type === 'form' && r.value && typeof r.value === 'object') {
    const parts = Object.entries(r.value as Record<string, unknown>).map(
      ([k, v]) => `${b.fields.find((f) => f.id === k)?.label ?? k}: ${String(v)}`,
    );
    return `submitted ${parts.join(', ') || 'the form'}`;
  }
  return 'answered';
}

function Block({ msg, block, closed, responses }: { msg: Message; block: CardBlock; closed: boolean; responses: CardResponse[] }) {
  const [busy, setBusy] = useState(false);
  switch (block.type) {
    case 'text':
      return <Markdown text={block.text} className="card-text" />;
    case 'buttons': {
      const chosen = responses.filter((r) => r.block_id === block.id).at(-1)?.value;
      return (
        <div className="card-buttons" role="group" aria-label="Card buttons">
          {block.options.map((o) => (
            <button
              key={o.id}
              type="button"
              className={`btn ${o.style === 'primary' ? 'btn-primary' : o.style === 'danger' ? 'btn-danger' : ''} ${closed && chosen === o.id ? 'chosen' : ''}`}
              disabled={closed || busy}
              onClick={async () => {
                setBusy(true);
                await answerCard(msg.msg_id, block.id, o.id);
                setBusy(false);
              }}
            >
              {o.label}
            </button>
          ))}
        </div>
      );
    }
    case 'form':
      return <CardForm msg={msg} block={block} closed={closed} />;
    default: {
      const never: never = block;
      return never;
    }
  }
}

type FieldValue = string | boolean;

function CardForm({ msg, block, closed }: { msg: Message; block: Extract<CardBlock, { type: 'form' }>; closed: boolean }) {
  const uid = useId();
  const initial = () =>
    Object.fromEntries(block.fields.map((f) => [f.id, f.type === 'checkbox' ? false : ''])) as Record<string, FieldValue>;
  const [values, setValues] = useState<Record<string, FieldValue>>(initial);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const value: Record<string, unknown> = {};
    for (const f of block.fields) {
      const v = values[f.id];
      if (f.type === 'checkbox') value[f.id] = v === true;
      else if (typeof v === 'string' && v.trim() !== '') value[f.id] = f.type === 'number' ? Number(v) : v;
    }
    setBusy(true);
    const r = await answerCard(msg.msg_id, block.id, value);
    setBusy(false);
    if (r) {
      setSent(true);
      setValues(initial());
    }
  };

  return (
    <form className="card-form" onSubmit={submit} aria-label={block.submit}>
      <fieldset disabled={closed || busy}>
        {block.fields.map((f) => (
          <Field
            key={f.id}
            id={`${uid}-${f.id}`}
            field={f}
            value={values[f.id]!}
            onChange={(v) => setValues((s) => ({ ...s, [f.id]: v }))}
          />
        ))}
        <div className="row">
          <button type="submit" className="btn btn-primary">
            {block.submit}
          </button>
          {sent && !closed && <span className="muted small">Sent ✓</span>}
        </div>
      </fieldset>
    </form>
  );
}

function Field({ id, field, value, onChange }: { id: string; field: FormField; value: FieldValue; onChange: (v: FieldValue) => void }) {
  const label = (
    <label htmlFor={id}>
      {field.label}
      {field.required && (
        <span className="req" aria-hidden="true">
          {' '}
          *
        </span>
      )}
    </label>
  );
  switch (field.type) {
    case 'checkbox':
      return (
        <div className="field field-check">
          <input id={id} type="checkbox" checked={value === true} required={field.required} onChange={(e) => onChange(e.target.checked)} />
          {label}
        </div>
      );
    case 'select':
      return (
        <div className="field">
          {label}
          <select id={id} value={String(value)} required={field.required} onChange={(e) => onChange(e.target.value)}>
            <option value="">Choose…</option>
            {(field.options ?? []).map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        </div>
      );
    case 'number':
      return (
        <div className="field">
          {label}
          <input
            id={id}
            type="number"
            step="any"
            value={String(value)}
            required={field.required}
            max={field.max}
            onChange={(e) => onChange(e.target.value)}
          />
          {field.max !== undefined && <span className="hint">at most {field.max}</span>}
        </div>
      );
    case 'text':
    default:
      return (
        <div className="field">
          {label}
          {field.max !== undefined && field.max <= 200 ? (
            <input
              id={id}
              type="text"
              value={String(value)}
              required={field.required}
              maxLength={field.max}
              onChange={(e) => onChange(e.target.value)}
            />
          ) : (
            <textarea
              id={id}
              rows={2}
              value={String(value)}
              required={field.required}
              maxLength={field.max}
              onChange={(e) => onChange(e.target.value)}
            />
          )}
          {field.max !== undefined && (
            <span className="hint">
              {String(value).length}/{field.max}
            </span>
          )}
        </div>
      );
  }
}
