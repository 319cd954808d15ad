/**
 * The single entry point of a check: run a strategy over a model, then turn how it ended into a
 * `CheckResult` with stats, coverage and a rebuilt counterexample.
 */
import { availableParallelism } from 'node:os';
import type { ActionParams, Model, ParamValues } from '../../spec/spec.ts';
import { formatValue } from '../../traces/text.ts';
import { toItfValue } from '../../traces/itf/write.ts';
import { isTemporal } from '../../invariants/property.ts';
import type { Trace, TraceVerdict } from '../../traces/trace.ts';
import { breadthFirst } from './bfs.ts';
import { depthFirst } from './dfs.ts';
import { Expander, StepViolation } from './expander.ts';
import { Limits } from './limits.ts';
import type { CheckOptions } from './options.ts';
import type { ActionCoverage, CheckResult, Stats } from './result.ts';
import type { SearchOutcome } from './search.ts';
import { NondeterminismError, rebuildSteps } from './traceBuilder.ts';
import { accelerateImmutable } from './immutableAcceleration.ts';
import { MAX_PERMUTATIONS, permutationCount } from './symmetry.ts';
import type { ModelSource } from './modelSource.ts';
import type { OwnerCheckpoints } from './owners/ownedSearch.ts';
import type { Checkpoints } from './checkpoint.ts';
import { CheckpointError, type CheckpointState, checkpointExtent, readCheckpoint, refuseExistingCheckpoint } from './checkpoint.ts';
import { type OwnerCheckpoint, readOwnerCheckpoint } from './owners/ownerCheckpoint.ts';
import { propertyList, rulesDigest } from './rulesDigest.ts';
import { fileDigest } from './cluster/specIdentity.ts';
import { specSources } from './specSources.ts';
import { CANNOT_BE_CHECKED, isPacked, layoutOf, type PackedLayout, viewOfAnotherKmc } from './state/packed.ts';
import type { LivenessRecorder } from './liveness/checkLiveness.ts';
import { constrainedLivenessWarning, livenessRefusal } from './liveness/refusal.ts';

/** How a result names what was checked (copied into traces and reports). */
export type { CheckLabel } from './label.ts';
import type { CheckLabel } from './label.ts';

/** The options cannot work with this model (a user mistake, reported as a configuration error). */
export class ConfigError extends Error {}

/** The states the fingerprint table holds before it first grows (FingerprintSet's start capacity). */
const TABLE_START_STATES = 1 << 16;

/**
 * Checks every property of `model` on every reachable state.
 * With `workers > 1`, `source` must say how worker threads load the same model.
 */
export async function checkModel<S>(
  model: Model<S>,
  options: CheckOptions,
  label: CheckLabel,
  source?: ModelSource,
): Promise<CheckResult<S>> {
  accelerateImmutable();
  validate(model, options);
  const expander = new Expander(model, options.symmetry ?? false);
  const limits = new Limits(options);
  const workers = options.workers ?? 1;
  const temporal = livenessRefusal(model, false) === null && model.properties.some(isTemporal);
  const constrained = temporal ? constrainedLivenessWarning(model) : null;
  if (constrained !== null) options.onWarning?.(constrained);
  // Only one thread spills its frontier to disk (bfs.ts): a search under a memory budget runs in one thread,
  // whatever the number of workers, instead of ending incomplete where it could have spilled. Worker
  // threads the user did not ask for are used only where they lose nothing else one thread has (options.ts).
  // Worker threads are owners of a partitioned search, which sends states between them as bytes: states
  // that are not bytes stay in one thread (unusedWorkers).
  const first = firstInitialState(expander);
  const packs = isPacked(first);
  const bfs = (options.strategy ?? 'bfs') === 'bfs';
  const threads = options.memoryBudgetBytes !== undefined || !packs || !bfs ? 1 : !options.workersByDefault || !temporal ? workers : 1;
  const unused = workers > 1 && !options.workersByDefault && options.owners === undefined ? unusedWorkers(first, options, packs, workers, label.spec) : null;
  if (unused !== null) options.onWarning?.(unused);
  const owners = ownersOf(options, threads > 1 && source !== undefined && (await recordsCanBeKept(options)) ? threads : undefined);
  const checkpoints = checkpointsFor(expander, options, label, source, owners);
  let outcome: SearchOutcome;
  let recorder: LivenessRecorder<S> | undefined;
  if (owners !== undefined) {
    const disk = { ...(checkpoints.write ? { write: checkpoints.write } : {}), ...(checkpoints.ownersResume ? { resume: checkpoints.ownersResume } : {}) };
    outcome = await ownedSearch(model, expander, options, limits, source, disk, owners);
  } else if (!bfs) {
    outcome = await depthFirst(expander, options, limits);
  } else {
    // A whole search in one thread records the graph the liveness check needs as it goes.
    if (temporal && !checkpoints.resumeFrom) recorder = new (await import('./liveness/checkLiveness.ts')).LivenessRecorder(expander);
    outcome = await breadthFirst(expander, options, limits, checkpoints, recorder);
  }
  const result = toResult(expander, outcome, limits, label, options);
  // A witness never reached does not excuse the temporal properties: they are checked too, and a fair
  // behaviour that breaks one is the verdict (it names the witnesses as well).
  const checkTemporal = result.status === 'holds' || (result.status === 'violation' && result.kind === 'sometimes');
  return checkTemporal && temporal ? withLiveness(model, result, limits, label, recorder) : result;
}

/** The search partitioned among owners in this process, or among worker processes through NATS. */
async function ownedSearch<S>(model: Model<S>, expander: Expander<S>, options: CheckOptions, limits: Limits, source: ModelSource | undefined, disk: OwnerCheckpoints, owners: number): Promise<SearchOutcome> {
  const first = firstInitialState(expander);
  if (first !== undefined && !isPacked(first)) {
    throw new Error(CANNOT_BE_CHECKED + (viewOfAnotherKmc(first) ?? `it declares a layout, but its initial state is a ${Object.getPrototypeOf(first)?.constructor?.name ?? typeof first}, not a state of that layout: init() must return values made by the layout (Layout.from(…), docs/layouts.md)`));
  }
  const { ownedBreadthFirst } = await import('./owners/ownedSearch.ts');
  if (options.cluster === undefined) {
    // Owners here keep their records under TMPDIR: a directory they cannot write is the user's to fix, said before the search.
    const problem = await recordsProblem();
    if (problem !== null) throw new ConfigError(problem);
  }
  if (options.cluster === undefined && source !== undefined) {
    const { threadOwners } = await import('./owners/threadOwners.ts');
    const symmetry = options.symmetry ?? false;
    // --owners N spreads its parts over every core; --workers N is N owners on N threads.
    const carriers = options.owners !== undefined ? availableParallelism() : owners;
    return ownedBreadthFirst(expander, options, limits, owners, async () => threadOwners(owners, carriers, source, () => new Expander(model, symmetry), symmetry, options.deadlock ?? true, options.ownerThreadsFromDepth), false, disk);
  }
  if (options.cluster === undefined) {
    // A model built in code, with no module a thread could load it from: the owners are objects here.
    const { localOwners } = await import('./owners/localOwners.ts');
    return ownedBreadthFirst(expander, options, limits, owners, async () => localOwners(owners, () => new Expander(model, options.symmetry ?? false), options.deadlock ?? true), false, disk);
  }
  if (!source) throw new ConfigError('a search on a cluster needs the module the workers load the spec from');
  const [{ natsOwners }, { specIdentity }] = await Promise.all([import('./cluster/natsOwners.ts'), import('./cluster/specIdentity.ts')]);
  const cluster = options.cluster;
  // validateOwners has made sure the spec declares a layout.
  const identity = specIdentity(source.modulePath, model, options.symmetry ?? false, model.layout! as PackedLayout);
  const note = options.onClusterNote;
  return ownedBreadthFirst(
    expander,
    options,
    limits,
    owners,
    () =>
      natsOwners(cluster, owners, source, {
        identity,
        symmetry: options.symmetry ?? false,
        deadlock: options.deadlock ?? true,
        waitSeconds: options.clusterWaitSeconds ?? 30,
        silenceSeconds: options.clusterSilenceSeconds ?? 15,
        ...(options.clusterResumeRun !== undefined ? { resumeRun: options.clusterResumeRun } : {}),
        ...(options.clusterCheckpointStore !== undefined ? { checkpointStore: options.clusterCheckpointStore } : {}),
        ...(note ? { note, onRun: (run: string) => note(`run ${run} on ${cluster}; if this driver stops, go on with --resume-run ${run}`) } : {}),
      }),
    options.clusterResumeRun !== undefined,
  );
}

/** Why owners in this process cannot keep their records under TMPDIR (how each state was reached), or null. */
async function recordsProblem(): Promise<string | null> {
  const { WordFile } = await import('./state/wordFile.ts');
  try {
    new WordFile().close();
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Whether worker threads (owners) can keep their records under TMPDIR. Workers the user did not ask for
 * give way to one thread, which keeps its records in memory; workers asked for say what is wrong.
 */
async function recordsCanBeKept(options: CheckOptions): Promise<boolean> {
  return !options.workersByDefault || (await recordsProblem()) === null;
}

/**
 * How many owners partition the search, or undefined for the search in one thread: --owners N; else
 * --workers N, as N owner threads (`threaded`); else one owner to resume a checkpoint owners wrote (they
 * are dealt out again among any number). A checkpoint of the search in one thread goes on in one thread.
 */
function ownersOf(options: CheckOptions, threaded: number | undefined): number | undefined {
  if (options.owners !== undefined) return options.owners;
  const dir = options.resumeDirectory;
  if (dir === undefined) return threaded;
  const saved = checkpointExtent(dir);
  if (saved === null) return threaded;
  if (saved.owners !== undefined) {
    if (options.memoryBudgetBytes !== undefined) {
      throw new ConfigError(`the checkpoint in ${dir} was written by worker threads or owners, and goes on partitioned among owners, which do not take --memory-budget (only the search in one thread spills its frontier). Resume it without --memory-budget.`);
    }
    return threaded ?? 1;
  }
  if (threaded !== undefined && !options.workersByDefault) {
    options.onWarning?.(`--workers ${threaded} is not used: the checkpoint in ${dir} was written by a search in one thread, which goes on in one thread (a checkpoint written with --workers goes on with any number of workers).`);
  }
  return undefined;
}

/**
 * Why `--workers N`, asked for, searches in one thread; null where it does not. Worker threads once
 * shared out Immutable.js states too, each keeping and expanding its share of a level, merged in one
 * thread; measured on 2 cores against one
 * thread: Paxos Commit's first 400,000 states 0.84× (at 1.5× the memory), KRaft 0.97×, TwoPhase packed
 * into a number 0.33×, TwoPhase over Immutable.js 0.9–1.05× at rm=7 and 1.18× at rm=8. The merge and
 * the states made twice took what the second core gave, so those states stay in one thread, and the
 * warning says how to get the workers.
 */
function unusedWorkers(first: unknown, options: CheckOptions, packs: boolean, workers: number, spec: string): string | null {
  if ((options.strategy ?? 'bfs') === 'dfs') return `--workers ${workers} is not used with --strategy dfs: the depth-first search runs in one thread.`;
  if (options.memoryBudgetBytes !== undefined) return `--workers ${workers} is not used with --memory-budget: a search under a memory budget runs in one thread, the one that spills its frontier to disk.`;
  // No initial state to tell by (init() threw; states of a second copy of kmc throw when fingerprinted):
  // the search reports why, and a warning about the workers would only come before it.
  if (packs || first === undefined) return null;
  return `--workers ${workers} is not used: ${spec} is searched in one thread, because its states are not the bytes of a declared layout (worker threads share out packed states only; docs/layouts.md says how to declare one).`;
}

/** The model's first initial state; undefined when init() throws (the search reports it) or gives none. */
function firstInitialState<S>(expander: Expander<S>): S | undefined {
  try {
    return expander.initialStates()[0];
  } catch {
    return undefined;
  }
}

/**
 * The temporal properties, checked once the search has shown every state safe (`safe`: it holds, or a
 * witness was never reached): on the graph the search recorded, or else on one a pass of its own explores.
 * A pass that cannot finish leaves the run incomplete, even with a witness unreached: a gate that expects
 * that witness must not pass on properties nobody checked.
 */
async function withLiveness<S>(model: Model<S>, safe: CheckResult<S> & { status: 'holds' | 'violation' }, limits: Limits, label: CheckLabel, recorder?: LivenessRecorder<S>): Promise<CheckResult<S>> {
  const live = recorder ? recorder.judge(label, limits) : await (await import('./liveness/checkLiveness.ts')).checkLiveness(new Expander(model, false), limits, label);
  switch (live.kind) {
    case 'holds':
      return safe;
    case 'violation': {
      const unreached = safe.status === 'violation' ? safe.unreached : undefined;
      return { status: 'violation', kind: 'liveness', property: live.property.name, stats: safe.stats, trace: live.trace, ...(unreached ? { unreached } : {}), witnesses: safe.witnesses };
    }
    case 'incomplete':
      return { status: 'incomplete', reason: live.reason, stats: safe.stats, witnesses: safe.witnesses };
    case 'error':
      return { status: 'error', message: live.error.message, stats: safe.stats };
  }
}

/** The checkpoints a run writes and the one it resumes from, checked against this run. */
function checkpointsFor<S>(expander: Expander<S>, options: CheckOptions, label: CheckLabel, source: ModelSource | undefined, owners: number | undefined): Checkpoints & { readonly ownersResume?: OwnerCheckpoint } {
  if (options.checkpointDirectory === undefined && options.resumeDirectory === undefined) return {};
  if ((options.strategy ?? 'bfs') !== 'bfs') throw new ConfigError('checkpoints are written by the breadth-first search; drop --strategy dfs or the checkpoint options');
  const first = expander.initialStates()[0];
  if (!isPacked(first)) {
    throw new ConfigError('checkpoints need a spec that declares its state layout (its states are then plain bytes); this spec keeps Immutable.js states. See docs/layouts.md.');
  }
  const symmetry = options.symmetry ?? false;
  const layout = layoutOf(first);
  const identity = {
    spec: label.spec,
    params: label.params,
    width: layout.width,
    actions: expander.actions.map((a) => a.name),
    symmetry,
    properties: propertyList(expander.model),
    deadlock: options.deadlock ?? true,
    ...(source ? { moduleFile: { path: source.modulePath, sha256: fileDigest(source.modulePath) }, sources: specSources(source.modulePath).files } : {}),
  };
  const rulesOf = (level: Uint8Array) => rulesDigest(expander.model, symmetry, layout, level);
  const refused = (e: unknown): never => {
    if (e instanceof CheckpointError) throw new ConfigError(e.message);
    throw e;
  };
  let resumeFrom: CheckpointState | undefined;
  let ownersResume: (OwnerCheckpoint & { readonly level: Uint8Array }) | undefined;
  if (options.resumeDirectory !== undefined) {
    try {
      if (owners !== undefined) ownersResume = readOwnerCheckpoint(options.resumeDirectory, identity, owners);
      else resumeFrom = readCheckpoint(options.resumeDirectory, identity);
    } catch (e) {
      refused(e);
    }
    const saved = (resumeFrom ?? ownersResume)!;
    refusePassedLimits(options, resumeFrom ? { depth: resumeFrom.depth, distinct: resumeFrom.log.size } : ownersResume!.commit);
    if (rulesOf(saved.level) !== saved.rules) {
      throw new ConfigError(
        `the checkpoint in ${options.resumeDirectory} was written by another version of ${label.spec}: the same parameters and actions, ` +
          'but from the states it saved the rules now lead to other successors, or its properties or constraints judge them otherwise, so the resumed counts would belong to neither version. ' +
          'Resume with the spec as it was, or start afresh without --resume.',
      );
    }
  }
  if (options.checkpointDirectory !== undefined && options.resumeDirectory === undefined) {
    try {
      refuseExistingCheckpoint(options.checkpointDirectory, identity);
    } catch (e) {
      refused(e);
    }
  }
  const directory = options.checkpointDirectory ?? options.resumeDirectory;
  return {
    ...(directory !== undefined ? { write: { directory, everySeconds: options.checkpointEverySeconds ?? 600, identity, rulesOf } } : {}),
    ...(resumeFrom ? { resumeFrom } : {}),
    ...(ownersResume ? { ownersResume } : {}),
  };
}

/**
 * A checkpoint already past --max-depth or --max-states: a resumed search cannot take back the levels it
 * holds, and once ended at once with counts past its own limit.
 */
function refusePassedLimits(options: CheckOptions, saved: { readonly depth: number; readonly distinct: number }): void {
  const where = `the checkpoint in ${options.resumeDirectory}`;
  if (options.maxDepth !== undefined && saved.depth > options.maxDepth) {
    throw new ConfigError(`--max-depth ${options.maxDepth} is below the depth ${where} has reached (${saved.depth} levels searched): a resumed search cannot take levels back. Resume with --max-depth ${saved.depth} or more, or start afresh without --resume.`);
  }
  if (options.maxStates !== undefined && saved.distinct > options.maxStates) {
    throw new ConfigError(`--max-states ${options.maxStates} is below the ${saved.distinct.toLocaleString('en-US')} states ${where} holds: a resumed search cannot take states back. Resume with --max-states ${saved.distinct} or more, or start afresh without --resume.`);
  }
}

function validate<S>(model: Model<S>, options: CheckOptions): void {
  if (options.owners !== undefined) validateOwners(model, options);
  const refusal = livenessRefusal(model, options.symmetry ?? false);
  if (refusal !== null) throw new ConfigError(refusal);
  if (options.symmetry) {
    if (!model.symmetry || model.symmetry.length === 0) {
      throw new ConfigError('symmetry reduction was asked for, but this model declares no symmetry sets');
    }
    const unsound = model.properties.filter((p) => !p.symmetric).map((p) => p.name);
    if (unsound.length > 0) {
      throw new ConfigError(
        `symmetry reduction would make these properties unsound, because they are not declared symmetric: ${unsound.join(', ')}. ` +
          'Run without --symmetry, or declare them with { symmetric: true } if they give the same answer for every permutation of the ids.',
      );
    }
    if (!model.layout) {
      // Without a layout, renaming works on values: every leaf equal to an id is renamed. A number id
      // would rename epochs, offsets and counters that happen to equal it and merge distinct states
      // (TLC allows symmetry only over model values for the same reason).
      const numeric = model.symmetry.flat().filter((id) => typeof id !== 'string');
      if (numeric.length > 0) {
        throw new ConfigError(
          `symmetry reduction on a spec without a layout renames every value equal to an id, so its ids must be strings that no other value of the state equals; ` +
            `these ids are numbers: ${numeric.map(String).join(', ')}, and an epoch, offset or counter equal to one of them would be renamed too, merging states that differ. ` +
            `Name the ids with strings (for example 'b1', 'b2'), or declare a layout whose L.ids domain holds them (docs/layouts.md): a layout renames only the fields of that domain. Or run without --symmetry.`,
        );
      }
    }
    const perms = permutationCount(model.symmetry);
    if (perms > MAX_PERMUTATIONS) {
      throw new ConfigError(`symmetry over these sets means ${perms} permutations per state (at most ${MAX_PERMUTATIONS}); run without --symmetry`);
    }
  }
}

/** What a search partitioned among owners cannot do yet, said before it starts. */
function validateOwners<S>(model: Model<S>, options: CheckOptions): void {
  const where = options.cluster !== undefined ? `on a cluster (--cluster ${options.cluster})` : `partitioned among owners (--owners ${options.owners})`;
  if (!model.layout) throw new ConfigError(`a search ${where} sends states between owners as bytes, so it needs a spec declared with a layout (docs/layouts.md); this spec keeps Immutable.js states. Run without --owners/--cluster, or declare a layout.`);
  const refused: [boolean, string][] = [
    [(options.strategy ?? 'bfs') !== 'bfs', '--strategy dfs (the owners search breadth-first)'],
    [options.memoryBudgetBytes !== undefined, '--memory-budget'],
    [options.cluster !== undefined && (options.checkpointDirectory !== undefined || options.resumeDirectory !== undefined), '--checkpoint and --resume (a cluster checkpoints every level: resume it with --resume-run)'],
  ];
  const found = refused.filter(([on]) => on).map(([, what]) => what);
  if (found.length > 0) throw new ConfigError(`a search ${where} does not take ${found.join('; ')}.`);
}

function toResult<S>(expander: Expander<S>, o: SearchOutcome, limits: Limits, label: CheckLabel, options: CheckOptions): CheckResult<S> {
  try {
    return verdictOf(expander, o, limits, label, options);
  } catch (e) {
    // Rebuilding the counterexample showed the spec is not deterministic: no trace of it can be trusted.
    if (!(e instanceof NondeterminismError)) throw e;
    return { status: 'error', message: e.message, stats: statsOf(expander, o, limits, options) };
  }
}

function verdictOf<S>(expander: Expander<S>, o: SearchOutcome, limits: Limits, label: CheckLabel, options: CheckOptions): CheckResult<S> {
  const stats = statsOf(expander, o, limits, options);
  const witnesses = expander.witnesses.filter((_, i) => o.witnessesReached[i] === 1).map((p) => p.name);
  const end = o.end;
  /** The trace to a logged state, and `then` one step past it (a step property's violation). */
  const traceTo = (stateId: number, verdict: TraceVerdict, then?: { readonly action: number; readonly ordinal: number }): Trace<S> => {
    const path = o.log.pathTo(stateId).map((id) => ({ action: o.log.actionOf(id), ordinal: o.log.ordinalOf(id) }));
    if (then) path.push(then);
    return { spec: label.spec, ...(label.preset ? { preset: label.preset } : {}), params: label.params, steps: rebuildSteps(expander, path), verdict };
  };
  /** The search stopped at a step that breaks a step property: the trace to the state before it, then the step. */
  const stepViolated = (parentId: number, e: StepViolation): CheckResult<S> => {
    const p = expander.stepProperties[e.property]!;
    options.onVerdict?.({ status: 'violation', property: p.name, headline: `Step property ${p.name} violated` });
    const trace = traceTo(parentId, { kind: 'everyStep', property: p.name, description: p.description }, e);
    // The rebuilt last step must break the property the search found broken by it.
    const [before, after] = trace.steps.slice(-2).map((step) => step.state as S);
    if (before === undefined || after === undefined || expander.firstStepViolation(before, after) !== e.property) {
      throw new NondeterminismError(`the rebuilt counterexample ends in a step that does not break ${p.name}, though the search found it broken there: the spec's actions or ${p.name} are not deterministic`);
    }
    return { status: 'violation', kind: 'everyStep', property: p.name, stats, trace, witnesses };
  };
  switch (end.kind) {
    case 'violation': {
      const p = expander.invariants[end.invariant]!;
      options.onVerdict?.({ status: 'violation', property: p.name, headline: `Invariant ${p.name} violated` });
      const trace = traceTo(end.stateId, { kind: 'always', property: p.name, description: p.description });
      // The rebuilt last state must break the property the search found broken there.
      const last = trace.steps.at(-1)?.state as S;
      if (last !== undefined && expander.holds(last, end.invariant)) {
        throw new NondeterminismError(`the rebuilt counterexample ends in a state where ${p.name} holds, though the search found it violated there: the spec's actions or ${p.name} are not deterministic`);
      }
      return { status: 'violation', kind: 'always', property: p.name, stats, trace, witnesses };
    }
    case 'deadlock': {
      options.onVerdict?.({ status: 'violation', property: 'Deadlock', headline: 'Deadlock' });
      const trace = traceTo(end.stateId, { kind: 'deadlock', property: 'Deadlock', description: 'no action is enabled in this state' });
      return { status: 'violation', kind: 'deadlock', property: 'Deadlock', stats, trace, witnesses };
    }
    case 'incomplete':
      return { status: 'incomplete', reason: end.reason, stats, witnesses, ...(limits.notes.length > 0 ? { note: limits.notes.join('; ') } : {}) };
    case 'error': {
      if (end.error instanceof StepViolation) return stepViolated(end.stateId, end.error);
      const message = end.error.message;
      options.onVerdict?.({ status: 'error', property: 'Error', headline: `The spec threw: ${message}` });
      const trace = end.stateId >= 0 && end.stateId < o.log.size ? traceTo(end.stateId, { kind: 'error', property: 'Error', description: message }) : undefined;
      return { status: 'error', message, stats, ...(trace ? { trace } : {}) };
    }
    case 'complete': {
      const unreached = expander.witnesses.filter((_, i) => o.witnessesReached[i] !== 1).map((p) => p.name);
      if (unreached.length > 0) {
        return { status: 'violation', kind: 'sometimes', property: unreached[0]!, unreached, stats, witnesses };
      }
      return { status: 'holds', stats, witnesses };
    }
  }
}

function statsOf<S>(expander: Expander<S>, o: SearchOutcome, limits: Limits, options: CheckOptions): Stats {
  // Coverage is read before any trace is rebuilt: rebuilding runs actions again.
  const labels = bindingLabels(expander);
  const coverage: ActionCoverage[] = expander.actions.map((a, i) => ({
    action: a.name,
    enabled: expander.enabledCount[i]!,
    fired: expander.firedCount[i]!,
    newStates: o.newStates[i]!,
    ...(a.disabledBy !== undefined ? { disabledBy: a.disabledBy } : {}),
    ...(labels[i] !== undefined ? { label: labels[i] } : {}),
    ...(a.deadByConstruction !== undefined ? { deadByConstruction: a.deadByConstruction } : {}),
  }));
  limits.sampleMemory(); // the final RSS into peakRss
  const n = o.distinct;
  const g = o.generated;
  return {
    distinct: n,
    generated: g,
    depth: o.depth,
    queued: o.queued,
    seconds: limits.seconds,
    cpuSeconds: limits.cpuSeconds,
    collisionProbability: (n * Math.max(0, g - n)) / 2 ** 64,
    coverage,
    bytesPerState: n === 0 ? 0 : Math.round(o.offHeapBytes / n),
    tablesAtStartSize: n < TABLE_START_STATES,
    processBytesPerState: n === 0 ? 0 : Math.round(Math.max(0, limits.peakRss - limits.baseRss) / n),
    peakMemoryBytes: limits.peakRss,
    workers: o.workers,
    // Worker threads are owners too; `owners` says the user asked for the partition (--owners).
    ...(o.owned ? { ...(options.owners !== undefined ? { owners: o.workers } : {}), ownership: o.owned } : {}),
    spilledBytes: o.spilledBytes ?? 0,
  };
}

/**
 * Labels for actions that share a name (a TLC-ordered spec lists one action per binding): each by its
 * parameter choice in an initial state when it has exactly one (`Send(rm=r2)`), else by its position.
 */
function bindingLabels<S>(expander: Expander<S>): (string | undefined)[] {
  const actions = expander.actions;
  const named = new Map<string, number>();
  for (const a of actions) named.set(a.name, (named.get(a.name) ?? 0) + 1);
  if (actions.every((a) => named.get(a.name) === 1)) return actions.map(() => undefined);
  let first: S | undefined;
  try {
    first = expander.initialStates()[0];
  } catch {
    first = undefined;
  }
  const seen = new Map<string, number>();
  return actions.map((a) => {
    if (named.get(a.name) === 1) return undefined;
    const position = (seen.get(a.name) ?? 0) + 1;
    seen.set(a.name, position);
    let choices: ActionParams[] = [];
    try {
      choices = a.params && first !== undefined ? [...a.params(first)] : [];
    } catch {
      choices = [];
    }
    if (choices.length !== 1) return `${a.name} #${position}`;
    const p = choices[0]!;
    return `${a.name}(${Object.entries(p).map(([k, v]) => `${k}=${formatValue(toItfValue(v))}`).join(', ')})`;
  });
}
