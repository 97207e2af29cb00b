import type { DirectMsgRequest, MsgRequest, StoredMsg } from "@nats-io/jetstream";
import type { Bus } from "./bus.js";

/**
 * Reads of one stored message that a lagging replica cannot answer wrongly.
 *
 * A direct get (`$JS.API.DIRECT.GET.<stream>`) is answered by whichever replica of the stream is
 * nearest, and before nats-server 2.9.17 also by one that is behind (nats-io/nats-server#4171):
 * a node cut off by a partition, or just rejoined and catching up, says "no message" for what the
 * leader stored and acknowledged. Warden runs on 2.9.10 (Debian), so on a cluster an absent answer
 * is asked again of the stream's leader (`STREAM.MSG.GET`, which only the leader answers; every
 * role may send it). A present answer needs no second look: a replica holds a prefix of the
 * leader's stream, and an append-once subject holds one message. A single server is its own
 * leader: it is never asked twice.
 */

/** The message, or null when the stream's leader (not only the nearest replica) says there is none. */
export async function getStoredMessage(bus: Bus, stream: string, query: DirectMsgRequest): Promise<StoredMsg | null> {
  const m = await bus.jsm.direct.getMessage(stream, query);
  if (m !== null || !clustered(bus)) return m;
  return leaderGet(bus, stream, query);
}

/**
 * The newest message of a subject that holds many (a wildcard, the notary's checkpoints): on a
 * cluster always the leader's answer, since a lagging replica would answer with an older one.
 */
export async function getNewestMessage(bus: Bus, stream: string, query: { last_by_subj: string }): Promise<StoredMsg | null> {
  return clustered(bus) ? leaderGet(bus, stream, query) : bus.jsm.direct.getMessage(stream, query);
}

/** Whether the connected server is part of a cluster (its INFO names one); streams there may have replicas. */
function clustered(bus: Bus): boolean {
  return bus.nc.info?.cluster !== undefined;
}

function leaderGet(bus: Bus, stream: string, query: DirectMsgRequest): Promise<StoredMsg | null> {
  // STREAM.MSG.GET takes next_by_subj too (nats-server ≥ 2.9); the client's type lists only seq and last_by_subj
  return bus.jsm.streams.getMessage(stream, query as MsgRequest);
}
