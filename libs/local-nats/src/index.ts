export { findNatsServerBinary, freePort, NATS_INSTALL_HINT, natsServerVersionText, startNatsServer, type LocalNatsServer, type StartNatsOptions } from "./nats-server.js";
