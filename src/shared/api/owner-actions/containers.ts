// Owner actions of agents in containers: the container bridge listener.
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs } from './define';

export const containerActions = {
  // agents in containers: the container bridge listener, switched on the running hub (src/main/container-switch.ts)
  'containers.get': {
    device: 'laptop',
    description:
      'The container listener: whether it is on (the setting), the listeners running, the URL an agent in a container uses, the container bridges found on this computer.',
    input: () => z.strictObject({}),
  },
  'containers.set': {
    device: 'laptop',
    description:
      'Let agents in containers connect (on: true) or not: saved, and the container listener started or stopped on the running hub (/mcp only, for keys allowed containers). On a computer without a container bridge it says so and nothing listens.',
    input: () => z.strictObject({ on: z.boolean() }),
  },
} as const satisfies ActionDefs;
