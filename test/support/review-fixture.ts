// What the review mode tests share: agents on the suite's shared `perch serve`, and a pair (kit under review, bob)
// in a group that both have read to the end.
import { addAgent, connect, ownerOk, uniqueName, type AgentClient, type SharedServe } from './serve-harness';

type R = Record<string, any>;

export function reviewFixture(served: SharedServe) {
  async function agent(base: string): Promise<AgentClient> {
    const c = await connect('v1', served.mcpUrl, await addAgent(served.dataDir, uniqueName(base)));
    served.closeAfter(c);
    return c;
  }

  async function drain(c: AgentClient): Promise<void> {
    for (let i = 0; i < 50; i++) {
      const r = await c.ok('get_updates', {});
      if (r.events.length === 0) return;
    }
    throw new Error('get_updates never ran dry');
  }

  /** kit (under review) and bob share a group; both have read everything so far. */
  async function pair() {
    const [kit, bob] = await Promise.all([agent('kit'), agent('bob')]);
    const g = await kit.ok('create_group', { title: 'review crew', members: [bob.agent.name] });
    const convId = g.conversation.conv_id as string;
    await Promise.all([drain(kit), drain(bob)]);
    await ownerOk(served, 'agents.set_review', { agent: kit.agent.name, on: true });
    return { kit, bob, convId };
  }

  async function events(c: AgentClient, convId: string): Promise<R[]> {
    return (await c.ok('get_history', { conv_id: convId, limit: 200 })).events;
  }

  async function messages(c: AgentClient, convId: string): Promise<R[]> {
    return (await events(c, convId)).filter((e: R) => e.type === 'message.created').map((e: R) => e.message);
  }

  return { agent, drain, pair, events, messages };
}
