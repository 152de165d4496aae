// Batch work runs at a lower scheduling priority and the thread returns to its own afterwards.

import t from 'tap';
import { getPriority } from 'node:os';
import { atBatchPriority, BATCH_NICE_STEP } from '../../twin-runtime/background-priority.js';

const privileged = process.platform === 'linux' && process.getuid?.() === 0;
// Under `nice` (as the suite is often run on a shared machine) there may be no room left to lower.
const roomToLower = getPriority(0) <= 19 - BATCH_NICE_STEP;

t.test(
  'lowered while the work runs, restored after, also when it throws',
  {
    skip: !privileged
      ? 'raising a priority back needs CAP_SYS_NICE (root on Linux)'
      : !roomToLower
        ? `already at nice ${getPriority(0)}: no room to lower by ${BATCH_NICE_STEP}`
        : false,
  },
  async (t) => {
    const own = getPriority(0);
    const during = await atBatchPriority(async () => getPriority(0));
    t.equal(during, own + BATCH_NICE_STEP, 'lower while running');
    t.equal(getPriority(0), own, 'back afterwards');
    await t.rejects(
      atBatchPriority(async () => {
        throw new Error('lifecycle failed');
      }),
      /lifecycle failed/,
    );
    t.equal(getPriority(0), own, 'back after a failure too');
  },
);

t.test('the work runs and answers whether or not the priority can be changed', async (t) => {
  t.equal(await atBatchPriority(async () => 42), 42);
});
