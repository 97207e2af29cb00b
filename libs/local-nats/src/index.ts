export { findNatsServerBinary, freePort, NATS_INSTALL_HINT, natsServersIn, natsServerVersionText, startNatsServer, type LocalNatsServer, type StartNatsOptions } from "./nats-server.js";
