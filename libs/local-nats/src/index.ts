export {
  findNatsServerBinary,
  FREE_PORT_ATTEMPTS,
  freePort,
  NATS_INSTALL_HINT,
  natsServersIn,
  natsServerVersionText,
  startNatsServer,
  startNatsServerOnFreePort,
  type LocalNatsServer,
  type StartNatsOptions,
} from "./nats-server.js";
