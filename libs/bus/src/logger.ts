import { pino, type Logger } from "pino";

export type { Logger };

/** One root logger per process, JSON to stdout, with the service name on every line. */
export function createLogger(service: string, level: string = "info"): Logger {
  return pino({ base: { service }, level, timestamp: pino.stdTimeFunctions.isoTime });
}

export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
