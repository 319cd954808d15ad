/**
 * The `@metadata` log: what each record does to the cluster image (`ClusterControlManager.replay`,
 * `ReplicationControlManager.replay`), the images the controller and the brokers see, and the partition
 * changes the controller writes when a broker is fenced or unfenced
 * (`ReplicationControlManager.handleBrokerFenced` / `handleBrokerUnfenced`).
 */
import {
  type BrokerId,
  type Image,
  type LifecycleConfig,
  type LifecycleState,
  type MetaRecord,
  type PartitionId,
  type RecordType,
  baseOffset,
  initialEpoch,
  mutant,
} from './state.ts';

/** A record to append, as plain values (the fields its type uses). */
export interface RecordInput {
  readonly type: RecordType;
  readonly broker: BrokerId | null;
  readonly epoch: number;
  readonly incarnation: number;
  readonly partition: PartitionId | null;
  readonly leader: BrokerId | null;
  readonly isr: readonly BrokerId[];
  readonly leaderEpoch: number;
}

const initialCache = new WeakMap<LifecycleConfig, Image>();

/**
 * The image at the base offset. `running`: broker `bi` registered at offset `2(i-1)` (its epoch) and
 * unfenced at the next offset; partition `pj` led by broker `b(n-j+1)` with every broker in its ISR.
 * `fresh`: nothing registered; each partition is offline with that broker as the last ISR member.
 */
export function initialImage(cfg: LifecycleConfig): Image {
  let image = initialCache.get(cfg);
  if (image === undefined) initialCache.set(cfg, (image = buildInitialImage(cfg)));
  return image;
}

function buildInitialImage(cfg: LifecycleConfig): Image {
  const running = cfg.init === 'running';
  const regs = cfg.brokers.map((b) => {
    const epoch = initialEpoch(cfg, b);
    const reg = running
      ? { status: 'ACTIVE', epoch, incarnation: 0, registeredAt: epoch, fencedAt: epoch }
      : { status: 'UNREGISTERED', epoch: 0, incarnation: 0, registeredAt: 0, fencedAt: 0 };
    return [b, reg] as const;
  });
  const parts = cfg.partitions.map((p, j) => {
    // Led by the last broker, so that b1 (the one that may restart) is a follower.
    const first = cfg.brokers[cfg.brokers.length - 1 - (j % cfg.brokers.length)]!;
    const part = running ? { leader: first, isr: cfg.brokers, leaderEpoch: 0 } : { leader: null, isr: [first], leaderEpoch: 0 };
    return [p, part] as const;
  });
  // With no partitions the map's domain holds one placeholder key, never led and never in use.
  const placeholder = [['p0', { leader: null, isr: [], leaderEpoch: 0 }] as const];
  return cfg.layout.Image.from({ regs, parts: parts.length > 0 ? parts : placeholder } as never);
}

/** The image after one record at `offset`. */
export function applyRecord(image: Image, rec: MetaRecord | RecordInput, offset: number): Image {
  switch (rec.type) {
    case 'BrokerRecord': {
      // A new registration starts fenced: unfencing is its own record (Colin McCabe, Oct 22 2020). The same
      // incarnation registering again under its epoch keeps its fencing (`registerBroker` copies `fenced`).
      const prev = image.regs.get(rec.broker!);
      const amend = prev.status !== 'UNREGISTERED' && prev.incarnation === rec.incarnation && prev.epoch === rec.epoch;
      const status = amend ? prev.status : 'FENCED';
      return image.setIn(['regs', rec.broker], { status, epoch: rec.epoch, incarnation: rec.incarnation, registeredAt: offset, fencedAt: amend ? prev.fencedAt : offset });
    }
    case 'FencedBrokerRecord':
      return image.setIn(['regs', rec.broker, 'status'], 'FENCED').setIn(['regs', rec.broker, 'fencedAt'], offset);
    case 'UnfenceBroker':
      return image.setIn(['regs', rec.broker, 'status'], 'ACTIVE');
    case 'ControlledShutdownRecord':
      return image.setIn(['regs', rec.broker, 'status'], 'SHUTTING_DOWN');
    case 'PartitionChange':
      return image.setIn(['parts', rec.partition], { leader: rec.leader, isr: [...rec.isr], leaderEpoch: rec.leaderEpoch });
  }
}

/** The image of the committed records: what every broker converges to, and what survives a failover. */
export function committedImage(cfg: LifecycleConfig, s: LifecycleState): Image {
  const base = baseOffset(cfg);
  let image = initialImage(cfg);
  for (let i = 0; i < s.hwm - base; i++) image = applyRecord(image, s.log.get(i)!, base + i);
  return image;
}

/** Append records atomically (`ControllerResult.atomicOf`), applying each to the active controller's image. */
export function append(cfg: LifecycleConfig, s: LifecycleState, recs: readonly RecordInput[]): LifecycleState {
  let offset = baseOffset(cfg) + s.log.size;
  let ctrl = s.ctrl;
  let caughtUp = s.caughtUp;
  for (const rec of recs) {
    if (rec.type === 'PartitionChange' && ctrl.parts.get(rec.partition!).leader !== rec.leader) {
      // A new leader starts with no follower fetch state (`Partition.makeLeader`).
      caughtUp = caughtUp.set(rec.partition!, []);
    }
    ctrl = applyRecord(ctrl, rec, offset++);
  }
  return s.merge({ ctrl, log: s.log.push(...recs), caughtUp });
}

/** Whether appending `n` more records stays within the log bound. */
export function hasRoom(cfg: LifecycleConfig, s: LifecycleState, n: number): boolean {
  return s.log.size + n <= cfg.maxLog;
}

/**
 * A broker may lead: registered, unfenced, and not the one being fenced
 * (`ReplicationControlManager`'s `isAcceptableLeader`).
 */
function eligible(image: Image, b: BrokerId, excluded: BrokerId): boolean {
  return b !== excluded && image.regs.get(b).status === 'ACTIVE';
}

/**
 * The partition changes that take broker `b` out of leadership and the ISRs
 * (`ReplicationControlManager.handleBrokerFenced`, used also for controlled shutdown). The ISR never
 * becomes empty: the last member stays, leaderless, rather than risk an unclean election
 * (`PartitionChangeBuilder`). The new leader is the first eligible ISR member, by broker id.
 */
export function fenceChanges(cfg: LifecycleConfig, image: Image, b: BrokerId): RecordInput[] {
  const out: RecordInput[] = [];
  for (const p of cfg.partitions) {
    const part = image.parts.get(p);
    const shrinks = part.isr.has(b) && part.isr.size > 1;
    const isr = shrinks ? part.isr.delete(b) : part.isr;
    const leader = part.leader === b ? (isr.toArray().sort().find((r) => eligible(image, r, b)) ?? null) : part.leader;
    if (!shrinks && leader === part.leader) continue;
    out.push(partitionChange(p, leader, isr.toArray(), leader === part.leader ? part.leaderEpoch : part.leaderEpoch + 1));
  }
  return out;
}

/**
 * The partition changes when broker `b` is unfenced: every leaderless partition whose ISR holds `b` gets
 * it as leader (`ReplicationControlManager.handleBrokerUnfenced`).
 */
export function unfenceChanges(cfg: LifecycleConfig, image: Image, b: BrokerId): RecordInput[] {
  const out: RecordInput[] = [];
  for (const p of cfg.partitions) {
    const part = image.parts.get(p);
    if (part.leader === null && part.isr.has(b)) out.push(partitionChange(p, b, part.isr.toArray(), part.leaderEpoch + 1));
  }
  return out;
}

const NONE = { broker: null, epoch: 0, incarnation: 0, partition: null, leader: null, isr: [], leaderEpoch: 0 } as const;

export function partitionChange(p: PartitionId, leader: BrokerId | null, isr: readonly BrokerId[], leaderEpoch: number): RecordInput {
  return { ...NONE, type: 'PartitionChange', partition: p, leader, isr, leaderEpoch };
}

export function brokerRecord(b: BrokerId, epoch: number, incarnation: number): RecordInput {
  return { ...NONE, type: 'BrokerRecord', broker: b, epoch, incarnation };
}

export function fencedBrokerRecord(b: BrokerId, epoch: number): RecordInput {
  return { ...NONE, type: 'FencedBrokerRecord', broker: b, epoch };
}

/** `BrokerRegistrationChangeRecord` with `inControlledShutdown` (`ReplicationControlManager.handleBrokerInControlledShutdown`). */
export function controlledShutdownRecord(b: BrokerId, epoch: number): RecordInput {
  return { ...NONE, type: 'ControlledShutdownRecord', broker: b, epoch };
}

export function unfenceBroker(b: BrokerId, epoch: number): RecordInput {
  return { ...NONE, type: 'UnfenceBroker', broker: b, epoch };
}

/**
 * A session is valid while `lastContact + sessionTimeout >= now`, the end itself included
 * (`BrokerHeartbeatManager.hasValidSession`; `BrokerHeartbeatTracker.isExpired` is its negation): the
 * lease's `end` is `lastContact + leaseTimeout`.
 */
export function leaseLive(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId): boolean {
  return mutant(cfg, 'leaseStrict') ? s.leases.get(b).end > s.now : s.leases.get(b).end >= s.now;
}
