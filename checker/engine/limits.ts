/**
 * The budgets a search runs under, checked between states: time, states, memory, Ctrl-C. Hitting one
 * ends the search as `incomplete` with the stats so far, never as an out-of-memory crash.
 */
import { getHeapStatistics } from 'node:v8';
import type { CheckOptions } from './options.ts';
import type { IncompleteReason, Progress } from './result.ts';

// The V8 heap can fill before the machine's memory does; stop well before it would abort the process.
const MEMORY_READ_MS = 50;
const HEAP_HEADROOM = 0.85;
/**
 * The resident size is read less often than the heap: it comes from /proc, and a read took 1–2 ms (up to
 * 12) while worker threads faulted fresh tables in, 60–95 ms of a 2.3 s KRaft search with two workers
 * when read every 50 ms. The heap figure, which the limits need, is V8's own and costs microseconds.
 */
const RSS_READ_MS = 250;
/** The longest a search goes without looking at its limits, but for one state's expansion and 7 more. */
const LOOK_MS = 50;

export class Limits {
  readonly startedAt = performance.now();
  /** The process's CPU time when the search started (`cpuSeconds`). */
  private readonly cpuAtStart = process.cpuUsage();
  private readonly deadline: number;
  private readonly heapLimit = getHeapStatistics().heap_size_limit * HEAP_HEADROOM;
  private nextProgressAt: number;
  private lastYieldAt = performance.now();
  peakRss = process.memoryUsage.rss();
  /** When the heap and the resident size were last measured: at most every 50 and 250 ms. */
  private memoryReadAt = -Infinity;
  private rssReadAt = -Infinity;
  readonly baseRss = this.peakRss;
  private heapUsed = 0;
  /** States expanded since the search last looked at its limits, and when it did (`lookDue`). */
  private sinceLook = 0;
  private lookedAt = performance.now();

  constructor(private readonly options: CheckOptions) {
    this.deadline = options.timeLimitSeconds !== undefined ? this.startedAt + options.timeLimitSeconds * 1000 : Infinity;
    this.nextProgressAt = this.startedAt + (options.progressIntervalMs ?? 1000);
  }

  get seconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  /** CPU seconds the process has spent since the search started: every thread's, its workers' and V8's own. */
  get cpuSeconds(): number {
    const { user, system } = process.cpuUsage(this.cpuAtStart);
    return (user + system) / 1e6;
  }

  /** Why the search must stop now, or null. `offHeapBytes` is the checker's typed-array memory. */
  exceeded(distinct: number, offHeapBytes: number): IncompleteReason | null {
    const o = this.options;
    if (o.maxStates !== undefined && distinct >= o.maxStates) return 'maxStates';
    const now = performance.now();
    if (now > this.deadline) return 'timeLimit';
    if (now - this.memoryReadAt >= MEMORY_READ_MS) {
      this.readHeap(now);
      if (now - this.rssReadAt >= RSS_READ_MS) this.readRss(now);
    }
    const heap = this.heapUsed;
    if (heap > this.heapLimit) return 'memoryBudget';
    if (o.memoryBudgetBytes !== undefined && heap + offHeapBytes > o.memoryBudgetBytes) return 'memoryBudget';
    if (o.shouldStop?.()) return 'interrupted';
    return null;
  }

  /** Reads the heap in use and the resident size now (a search's last reading, for its peak). */
  sampleMemory(): void {
    const now = performance.now();
    this.readHeap(now);
    this.readRss(now);
  }

  private readHeap(now: number): void {
    this.memoryReadAt = now;
    this.heapUsed = getHeapStatistics().used_heap_size;
  }

  private readRss(now: number): void {
    this.rssReadAt = now;
    const rss = process.memoryUsage.rss();
    if (rss > this.peakRss) this.peakRss = rss;
  }

  /** True when the checker's memory is within a tenth of the budget: time to move the frontier to disk. */
  nearBudget(offHeapBytes: number): boolean {
    const budget = this.options.memoryBudgetBytes;
    if (budget === undefined) return false;
    return getHeapStatistics().used_heap_size + offHeapBytes > budget * 0.9;
  }

  /** Something the user should hear about the run (e.g. why it stopped), kept for the result. */
  note(message: string): void {
    this.notes.push(message);
  }
  readonly notes: string[] = [];

  /** Calls the progress callback when its interval has passed. */
  progress(p: Omit<Progress, 'seconds'>): void {
    const now = performance.now();
    if (now < this.nextProgressAt || !this.options.onProgress) return;
    this.nextProgressAt = now + (this.options.progressIntervalMs ?? 1000);
    this.options.onProgress({ ...p, seconds: (now - this.startedAt) / 1000 });
  }

  /**
   * Whether a search should look at its limits after the state it just expanded: after 512 states, or
   * sooner once LOOK_MS have passed (the clock read every 8th state). Counted in states alone, a spec of
   * 5 ms steps ran 8 s past a time limit of 1 s, and reported no progress to the watchdog meanwhile.
   */
  lookDue(): boolean {
    const n = ++this.sinceLook;
    if ((n & 7) !== 0) return false;
    const now = performance.now();
    if (n < 512 && now - this.lookedAt < LOOK_MS) return false;
    this.sinceLook = 0;
    this.lookedAt = now;
    return true;
  }

  /** True every ~50 ms, so a long synchronous search can let signals (Ctrl-C) and timers run. */
  shouldYield(): boolean {
    const now = performance.now();
    if (now - this.lastYieldAt < 50) return false;
    this.lastYieldAt = now;
    return true;
  }
}

export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
