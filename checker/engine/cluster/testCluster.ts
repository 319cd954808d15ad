/**
 * Test support: NATS servers with JetStream on loopback (one, or a cluster of three), and `kmc worker`
 * processes, started from the tests and stopped by them. `nats-server` is Debian's package (.ci/run
 * installs it); where it is missing the cluster tests are skipped, unless KMC_REQUIRE_NATS is set.
 */
import { after, before } from 'node:test';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function natsServerPath(): string | null {
  for (const path of ['nats-server', '/usr/sbin/nats-server', '/usr/bin/nats-server']) {
    const r = spawnSync(path, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return path;
  }
  if (process.env.KMC_REQUIRE_NATS) throw new Error('KMC_REQUIRE_NATS is set but nats-server is not installed (apt-get install nats-server)');
  return null;
}

/**
 * Why a test of a cluster is skipped, or false: `skip` without nats-server; `fast`, the tests `npm test`
 * runs (not run again by the slow tier); `slow`, those only the slow tier runs (`slowBecause` says why).
 * `slowTier`: process.env.KMC_SLOW, read in the test file itself, where scripts/test.mjs looks for it to
 * know the file has slow tests.
 */
export function clusterTiers(slowTier: string | undefined, slowBecause: string): { skip: string | false; fast: string | false; slow: string | false } {
  const skip = natsServerPath() === null ? 'nats-server is not installed (.ci/run installs it from Debian)' : false;
  return { skip, fast: slowTier ? 'run by npm test' : skip, slow: slowTier ? skip : slowBecause };
}

/**
 * One NATS server and `workers` kmc worker processes for a test file: started before its tests (unless
 * `skipped`), stopped after them. Returns the server's address, to read once they have started.
 */
export function clusterForFile(bin: string, workers: number, skipped: string | false): () => string {
  let servers: NatsServers | undefined;
  let started: ChildProcess[] = [];
  before(async () => {
    if (skipped) return;
    servers = await startNats(1);
    started = startWorkers(bin, servers.urls[0]!, workers);
  });
  after(async () => {
    if (skipped) return;
    await Promise.all(started.map((w) => stopProcess(w)));
    await servers!.stop();
  });
  return () => servers!.urls[0]!;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface NatsServers {
  /** The client address of each server. */
  readonly urls: string[];
  readonly processes: ChildProcess[];
  /** Kills every server (SIGKILL) and starts it again on the same port and store. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** `count` servers with JetStream; more than one form a cluster (routes between them all). */
export async function startNats(count = 1): Promise<NatsServers> {
  const binary = natsServerPath();
  if (binary === null) throw new Error('nats-server is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'kmc-nats-'));
  const clientPorts = await Promise.all(Array.from({ length: count }, freePort));
  const routePorts = await Promise.all(Array.from({ length: count }, freePort));
  const start = (port: number, i: number) => {
    const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', join(dir, `s${i}`), '-n', `kmc-${i}`];
    if (count > 1) {
      args.push('--cluster_name', 'kmc', '--cluster', `nats://127.0.0.1:${routePorts[i]}`, '--routes', routePorts.map((p) => `nats://127.0.0.1:${p}`).join(','));
    }
    return spawn(binary, args, { stdio: 'ignore' });
  };
  const processes = clientPorts.map(start);
  const urls = clientPorts.map((p) => `nats://127.0.0.1:${p}`);
  await Promise.all(urls.map((u) => untilJetStream(u)));
  return {
    urls,
    processes,
    restart: async () => {
      await Promise.all(processes.map((p) => stopProcess(p, 'SIGKILL')));
      processes.splice(0, processes.length, ...clientPorts.map(start));
      await Promise.all(urls.map((u) => untilJetStream(u)));
    },
    stop: async () => {
      await Promise.all(processes.map((p) => stopProcess(p)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the server answers JetStream requests (a cluster first elects its meta leader). */
async function untilJetStream(url: string): Promise<void> {
  const { connect } = await import('nats');
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const nc = await connect({ servers: url, timeout: 1000 });
      try {
        await (await nc.jetstreamManager()).getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`the NATS server at ${url} did not start JetStream within 30 s: ${String(e)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** What must not depend on where a search ran: its JSON report without timings, memory and how it was partitioned. */
export function comparable(stdout: string): Record<string, unknown> {
  const r = JSON.parse(stdout) as Record<string, unknown>;
  for (const k of ['seconds', 'cpuSeconds', 'bytesPerState', 'processBytesPerState', 'peakMemoryBytes', 'tablesAtStartSize', 'workers', 'owners', 'ownership', 'collisionProbability']) delete r[k];
  return r;
}

/** `count` `kmc worker` processes of the built CLI at `bin`, waiting at `url`. */
export function startWorkers(bin: string, url: string, count: number, more: string[] = []): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, [bin, 'worker', url, '--quiet', ...more], { stdio: 'ignore' }));
}

export async function stopProcess(p: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    p.once('exit', () => resolve());
    p.kill(signal);
  });
}
