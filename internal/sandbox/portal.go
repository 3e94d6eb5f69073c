package sandbox

// PortalPath is where, under the sandbox's base URL, its portal serves the
// public validation links {portal}/{uuid}/share/{longId}.
const PortalPath = "/portal"
