// A line for an event that is not a message: joins, handoffs, task changes, the floor, private notes.
import { memo } from 'react';
import type { EventView, UserRef } from '../../model';
import { TASK_STATE_LABEL, dateTimeOf, timeOf } from '../../format';
import { useSession } from '../../stores/session';
import { Icon } from '../Icon';

const nameOf = (u: UserRef | null | undefined) => (u && typeof u === 'object' && 'name' in u ? String(u.name) : '');

export const SystemRow = memo(function SystemRow({ event }: { event: EventView }) {
  const ownerId = useSession((s) => s.info?.owner.id);
  const who = event.actor ? (event.actor.id === ownerId ? 'You' : event.actor.name) : 'Perch';
  const you = (u: UserRef | null | undefined) => (u && typeof u === 'object' && u.id === ownerId ? 'you' : nameOf(u));
  let icon = 'spark';
  let text: string;
  switch (event.type) {
    case 'conversation.created': {
      const d = event.data;
      icon = 'spark';
      text = `${who} created ${d.kind === 'task' ? 'this task' : d.kind === 'group' ? 'this group' : 'this conversation'}${d.title ? `: ${String(d.title)}` : ''}${d.assignee ? ` (assigned to ${String(d.assignee)})` : ''}`;
      break;
    }
    case 'member.added': {
      const d = event.data;
      icon = 'join';
      text =
        event.actor && nameOf(d.user) && event.actor.id !== d.user.id ? `${who} added ${you(d.user)}` : `${nameOf(d.user) || who} joined`;
      break;
    }
    case 'handoff.created':
      icon = 'handoff';
      text = `${who} handed this to ${you(event.data.to)}: ${String(event.data.note ?? '')}`;
      break;
    case 'handoff.returned':
      icon = 'reply';
      text = `${who} handed this back to ${nameOf(event.data.agent)}${event.data.note ? `: ${String(event.data.note)}` : ''}`;
      break;
    case 'task.updated': {
      const d = event.data;
      icon = 'task';
      const from = TASK_STATE_LABEL[String(d.previous_state)] ?? String(d.previous_state);
      const to = TASK_STATE_LABEL[String(d.state)] ?? String(d.state);
      text =
        d.state !== d.previous_state
          ? `${who} moved the task from ${from} to ${to}`
          : `${who} assigned the task to ${nameOf(d.assignee) || 'nobody'}`;
      if (d.note) text += ` — “${String(d.note)}”`;
      break;
    }
    case 'floor.granted':
      icon = 'mic';
      text = `${who} gave the floor to ${nameOf(event.data.agent)}${typeof event.data.until === 'number' ? ` until ${timeOf(event.data.until)}` : ''}`;
      break;
    case 'floor.released': {
      const d = event.data;
      icon = 'mic';
      text =
        d.reason === 'expired'
          ? `${nameOf(d.holder)}'s turn ended (time is up)`
          : d.reason === 'replaced'
            ? `${nameOf(d.holder)}'s turn ended`
            : `${who} released the floor${nameOf(d.holder) ? ` (${nameOf(d.holder)})` : ''}`;
      break;
    }
    case 'owner.note':
      icon = 'note';
      text = `Private note: ${String(event.data.text ?? '')}`;
      break;
    case 'conversation.paused': // the loop brake (hub/control/brakes.ts)
      icon = 'spark';
      text = `Perch paused this conversation for agents: ${String(event.data.reason ?? 'a loop')}. Resume it, or write here.`;
      break;
    case 'conversation.resumed':
      icon = 'spark';
      text = `${who} resumed this conversation; the agents may talk here again`;
      break;
    case 'conversation.archived': // archived conversations (hub/talk/archive.ts)
      icon = 'note';
      text =
        event.data.by === 'retention'
          ? `Archived after ${String(event.data.idle_days ?? '?')} idle days (retention rule); agents can read it but not write here`
          : `${who} archived this conversation; agents can read it but not write here`;
      break;
    case 'conversation.unarchived':
      icon = 'note';
      text =
        event.data.reason === 'owner_wrote'
          ? `${who} wrote here, which brought this conversation back from the archive`
          : `${who} unarchived this conversation`;
      break;
    case 'config.updated':
      icon = 'config';
      text = `Role config updated to version ${String(event.data.version ?? '?')}`;
      break;
    default:
      text = `${who}: ${event.type}`;
  }
  return (
    <div className={`sys-row sys-${event.type.replace('.', '-')}`} role="note">
      <span className="sys-icon">
        <Icon name={icon} size={14} />
      </span>
      <span className="sys-text">{text}</span>
      <time className="sys-time" dateTime={new Date(event.at).toISOString()} title={dateTimeOf(event.at)}>
        {timeOf(event.at)}
      </time>
    </div>
  );
});
