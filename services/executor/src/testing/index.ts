export { runTool, type RunToolOptions, type ToolRun } from "./run-tool.js";
