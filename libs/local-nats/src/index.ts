export { findNatsServerBinary, freePort, NATS_INSTALL_HINT, startNatsServer, type LocalNatsServer, type StartNatsOptions } from "./nats-server.js";
