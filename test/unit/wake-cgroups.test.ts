// A run's cgroups against the real kernel (Linux as root, where Perch may make cgroups): a memory ceiling the kernel
// refuses half-way (its v1 folder made, its limit write refused) leaves the run held by its own v2 cgroup with no
// kernel ceiling, and the hub's base says so for the owner's card; a recorded cgroup is used only where it is named
// after its run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { RunCgroup, findCgroupBase, removeHubFolder } from '../../src/main/launcher/cgroups';

const base = findCgroupBase().base;
const skip = base ? false : 'Perch may not make cgroups here (Linux as root, or a delegated subtree)';

/** A folder in a v1 hierarchy that has no memory controller: mkdir works there, a memory limit is refused. */
function nonMemoryV1(): string | null {
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const tail = line.split(' - ')[1]?.split(' ');
    if (tail?.[0] === 'cgroup' && !tail[2]?.split(',').includes('memory')) return line.split(' - ')[0]!.split(' ')[4]!;
  }
  return null;
}

test(
  'a memory ceiling the kernel refuses half-way: the run keeps its own cgroup, and the base says the ceiling is sampled',
  { skip },
  (t) => {
    const v1 = nonMemoryV1();
    if (!v1) return t.skip('no v1 hierarchy without memory is mounted here');
    const refusing = path.join(v1, 'perch-wake-test', `${process.pid}-refusing`);
    fs.mkdirSync(refusing, { recursive: true });
    const b = { ...base!, memory: { kind: 'v1' as const, dir: refusing }, memoryWhy: null as string | null };
    let cg: RunCgroup | undefined;
    try {
      cg = RunCgroup.create(b, 'run_refused', 64 * 1024 * 1024);
      assert.ok(fs.existsSync(path.join(cg.dir, 'cgroup.kill')), 'the run has its own v2 cgroup');
      assert.equal(cg.memoryDir, null, 'no memory cgroup is kept for it');
      assert.equal(fs.existsSync(path.join(refusing, 'run_refused')), false, 'the refused memory folder is removed');
      assert.equal(b.memory, null, 'the base has no kernel ceiling any more');
      assert.match(b.memoryWhy ?? '', /refused a run's memory ceiling/);
    } finally {
      cg?.remove();
      for (const d of [path.join(refusing, 'run_refused'), refusing, path.dirname(refusing)]) {
        try {
          fs.rmdirSync(d); // cgroup folders go with rmdir only
        } catch {
          /* gone */
        }
      }
    }
  },
);

test("a recorded cgroup is the run's only where it is named after it, in a hub's folder under perch-wake", { skip }, () => {
  const dir = path.join(base!.v2, 'run_a');
  assert.equal(RunCgroup.of('run_a', dir, null)?.dir, dir);
  assert.equal(RunCgroup.of('run_b', dir, null), null, "another run's name");
  assert.equal(RunCgroup.of('run_a', path.dirname(base!.v2), null), null, "not a run's folder");
  assert.equal(RunCgroup.of('../..', path.join(base!.v2, '../..'), null), null, 'a path that climbs');
  assert.equal(RunCgroup.of('run_a', '/sys/fs/cgroup/unified', null), null, 'the root cgroup');
  assert.equal(RunCgroup.of('run_a', dir, '/sys/fs/cgroup/memory')?.memoryDir, null, "a memory folder not the run's is dropped");
});

test.after(() => {
  if (base) removeHubFolder(base);
});
