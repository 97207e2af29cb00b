import { jetstreamManager, type DirectMsgRequest, type JetStreamManager, type MsgRequest, type StoredMsg } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Bus } from "./bus.js";
import { isNoAnswer } from "./nats-errors.js";

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
 *
 * A direct get is a queue request to every replica's server, and 2.9.10 may hand it to a replica
 * behind a partition whose route the others have not yet closed (minutes, at the default 2-minute
 * route ping): measured, about every second direct get then went unanswered for the whole cut
 * while the leader's STREAM.MSG.GET answered in milliseconds. So a direct get waits at most
 * DIRECT_WAIT_MS; one that goes unanswered sends this connection's reads to the leader for
 * LEADER_ONLY_MS before direct gets are tried again.
 */

/** A direct get is answered in milliseconds; this leaves room for a loaded machine. */
const DIRECT_WAIT_MS = 1_000;
/** How long a connection reads from the leader only after a direct get went unanswered. */
const LEADER_ONLY_MS = 30_000;

interface DirectState {
  readonly jsm: Promise<JetStreamManager>;
  leaderOnlyUntil: number;
}
const direct = new WeakMap<NatsConnection, DirectState>();

function directOf(bus: Bus): DirectState {
  let d = direct.get(bus.nc);
  if (d === undefined) {
    d = { jsm: jetstreamManager(bus.nc, { checkAPI: false, timeout: DIRECT_WAIT_MS }), leaderOnlyUntil: 0 };
    direct.set(bus.nc, d);
  }
  return d;
}

/** The message, or null when the stream's leader (not only the nearest replica) says there is none. */
export async function getStoredMessage(bus: Bus, stream: string, query: DirectMsgRequest): Promise<StoredMsg | null> {
  if (!clustered(bus)) return bus.jsm.direct.getMessage(stream, query);
  const d = directOf(bus);
  if (Date.now() < d.leaderOnlyUntil) return leaderGet(bus, stream, query);
  let m: StoredMsg | null;
  try {
    m = await (await d.jsm).direct.getMessage(stream, query);
  } catch (err) {
    if (!isNoAnswer(err)) throw err;
    d.leaderOnlyUntil = Date.now() + LEADER_ONLY_MS;
    return leaderGet(bus, stream, query);
  }
  return m ?? leaderGet(bus, stream, query);
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
