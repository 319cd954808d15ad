import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'nats';
import { seal } from './envelope.ts';
import { RECRUIT } from './subjects.ts';
import { clusterTiers, startNats, stopProcess } from './testCluster.ts';

const bin = join(fileURLToPath(new URL('../../..', import.meta.url)), 'dist/checker/cli/bin.mjs');
const { skip } = clusterTiers(process.env.KMC_SLOW, 'no slow case here');

test('a busy worker is out of the offers: an offer while every worker is busy finds no one at once, rather than a worker saying busy', { skip, timeout: 60_000 }, async () => {
  const servers = await startNats(1);
  const url = servers.urls[0]!;
  // One worker, whose log says when it takes its part of a run.
  const worker = spawn(process.execPath, [bin, 'worker', url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let logged = '';
  const joined = new Promise<void>((resolve) => {
    const hear = (d: Buffer) => {
      logged += d.toString();
      if (/owner 0 of 1 in run/.test(logged)) resolve();
    };
    worker.stdout!.on('data', hear);
    worker.stderr!.on('data', hear);
  });
  const nc = await connect({ servers: url });
  // A run long enough to keep the one worker busy while the offer below is made.
  const driver = spawn(process.execPath, [bin, 'check', 'twophase', '--param', 'rm=8', '--owners', '1', '--cluster', url, '--json'], { stdio: 'ignore' });
  try {
    await joined;
    // The worker took its part, and with it left the queue group the offers go to (a moment for its
    // connection to tell the server so).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answer = await nc.request(RECRUIT, seal({ kind: 'none', run: 'nobody' }), { timeout: 5000 }).then(
      () => 'an answer',
      (e: { code?: string }) => `no one (${String(e.code)})`,
    );
    assert.equal(answer, 'no one (503)');
  } finally {
    await stopProcess(driver, 'SIGKILL');
    await stopProcess(worker);
    await nc.close();
    await servers.stop();
  }
});
