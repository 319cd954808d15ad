/**
 * The single-step rules of a heartbeat, judged around the controller's handler rather than inside it:
 * from the state before the step, the message, and the state after. Each judgement reads the log's
 * records, the leases and the clock directly, not a value the handler computed, so a fault in the
 * handler's own comparisons shows up here instead of being repeated here (issue: an audit flag set by
 * the guard's own expression can never catch that guard).
 */
import { committedImage, initialImage } from './metadata.ts';
import type { BrokerId, LifecycleConfig, LifecycleState, MetaRecord, Msg } from './state.ts';

/** The epoch of `b`'s latest BrokerRecord in the log (or the initial image), or null if it never registered. */
export function registeredEpochInLog(cfg: LifecycleConfig, s: LifecycleState, b: BrokerId): number | null {
  const init = initialImage(cfg).regs.get(b);
  let epoch: number | null = init.status === 'UNREGISTERED' ? null : init.epoch;
  s.log.forEach((r: MetaRecord) => {
    if (r.type === 'BrokerRecord' && r.broker === b) epoch = r.epoch;
  });
  return epoch;
}

/** The incarnation of `b`'s latest BrokerRecord appended after the state `before` (the registration this step granted), if any. */
function grantedIncarnation(before: LifecycleState, after: LifecycleState, b: BrokerId): number | undefined {
  let granted: number | undefined;
  after.log.forEach((r: MetaRecord, i: number) => {
    if (i >= before.log.size && r.type === 'BrokerRecord' && r.broker === b) granted = r.incarnation;
  });
  return granted;
}

/** Whether `b`'s registration in `image` is held unfenced, with a lease whose end the clock has not passed. */
function heldLive(s: LifecycleState, image: LifecycleState['ctrl'], b: BrokerId): boolean {
  return image.regs.get(b).status === 'ACTIVE' && s.now <= s.leases.get(b).end;
}

/** Sets the audit flags the step `before --HandleHeartbeat(m)--> after` earns. */
export function auditHeartbeat(cfg: LifecycleConfig, before: LifecycleState, m: Msg, after: LifecycleState): LifecycleState {
  const b = m.broker;
  let out = after;
  const granted = grantedIncarnation(before, after, b);
  if (m.epoch === null && granted !== undefined) {
    const holder = before.ctrl.regs.get(b);
    const other = holder.status !== 'UNREGISTERED' && holder.incarnation !== granted;
    // CurrentRegistrationWins: another incarnation held the id with a valid session.
    if (other && heldLive(before, before.ctrl, b)) out = out.setIn(['audit', 'displacedLive'], true);
    // NoDuplicateIdViaPending: ... and only its uncommitted records said so.
    if (other && heldLive(before, before.ctrl, b) && !heldLive(before, committedImage(cfg, before), b)) out = out.setIn(['audit', 'duplicateViaPending'], true);
  }
  if (m.epoch !== null) {
    const current = registeredEpochInLog(cfg, before, b);
    // An older epoch, or (the thread's rule) an older metadata offset than the last heartbeat of this epoch.
    const staleEpoch = current !== m.epoch;
    const staleOffset = !staleEpoch && m.offset < before.leases.get(b).lastOffset;
    const changed = !after.log.equals(before.log) || !after.leases.equals(before.leases) || !after.ctrl.equals(before.ctrl);
    if ((staleEpoch || staleOffset) && changed) out = out.setIn(['audit', 'staleHeartbeatApplied'], true);
  }
  return out;
}
