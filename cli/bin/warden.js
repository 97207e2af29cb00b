#!/usr/bin/env node
// The `warden` bin. A file kept in git (not dist/) so `npm ci` links it before anything is built
await import("../dist/main.js");
