// Test helpers: a real hub on a real SQLite file in a temporary folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/main/store/db';
import { Hub } from '../src/main/hub/hub';
import { addAgent } from '../src/main/hub/identities';
import '../src/main/hub/tools';

export interface TestHub {
  hub: Hub;
  dir: string;
  file: string;
  agent(name: string): { id: string; name: string; key: string };
  close(): void;
}

export function makeHub(): TestHub {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-test-'));
  const file = path.join(dir, 'perch.sqlite');
  const db = openDatabase(file);
  const hub = new Hub({ db });
  return {
    hub,
    dir,
    file,
    agent(name) {
      const { agent, key } = addAgent(hub, { name });
      return { id: agent.id, name: agent.name, key };
    },
    close() {
      hub.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
