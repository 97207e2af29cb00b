import { getHeapStatistics } from "node:v8";

/**
 * The V8 flags every Warden service process runs with (docker-compose's NODE_OPTIONS, the chaos
 * suite's processes). A service's live heap stays at 25–45 MiB while it drains a backlog (heap
 * snapshots at 2k and 40k calls of a drain were the same size), but under V8's defaults its heap
 * kept growing to ~4× that, the more the longer the drain ran: registry 236 MiB peak for 20k
 * calls, 380 MiB for 60k. A bounded old space makes V8 collect instead of growing; a bounded
 * young generation keeps each scavenge's share small. The bound is well above any live heap a
 * service holds (the projector's model caches are bounded at 10,000 keys per model).
 */
export const SERVICE_NODE_OPTIONS = "--max-old-space-size=128 --max-semi-space-size=8";

/** The heap this process may grow to, in MiB, as the "service started" line reports it. */
export function heapLimitMiB(): number {
  return Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024);
}
