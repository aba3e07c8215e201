/** The longest request line our MCP servers (gateway, mcp) read: the SDK's own stdio limit; docs/effects.md, "Bounds". */
export const MAX_MCP_REQUEST_BYTES = 10 * 1024 * 1024;
