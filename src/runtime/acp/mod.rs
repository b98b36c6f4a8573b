//! The client side of the Agent Client Protocol: the connection to an agent process (`client`:
//! the handshake, sessions, prompts, and the agent's requests as handlers), its transport over
//! stdio (`transport`), the conversions between ACP's types and ours (`convert`, `content`),
//! sessions (`session`, `sessions`), logging in (`auth`), the agent's questions (`elicit`), its
//! permission requests and their answers (`permissions`), the MCP servers given to it (`mcp`),
//! and a team member's writes that meet another member's (`leases`).

pub mod auth;
pub mod client;
mod connection;
pub mod content;
mod context;
pub mod convert;
pub mod elicit;
mod handlers;
pub mod leases;
pub mod mcp;
mod permissions;
pub mod session;
pub mod sessions;
pub mod transport;
