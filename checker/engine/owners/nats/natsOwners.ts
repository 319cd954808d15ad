import type { ModelSource } from '../../parallel/coordinator.ts';
import type { Limits } from '../../limits.ts';
import type { OwnerLink } from '../ownerProtocol.ts';
export async function natsOwners(_url: string, _count: number, _source: ModelSource, _setup: { symmetry: boolean; deadlock: boolean }, _limits: Limits): Promise<OwnerLink[]> {
  throw new Error('todo');
}
