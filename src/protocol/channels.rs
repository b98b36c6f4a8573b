//! The channel service's protocol (`runtime/services/channels.rs`): what the person says in a
//! team channel.

use super::ChannelInfo;

/// What a door asks of the channel service.
#[derive(Clone, Debug)]
pub enum ChannelCommand {
    /// Say `text` in channel `channel`: the runtime's channel service sends it to the members
    /// it is for (each with its catch-up) and remembers it.
    Say {
        /// The channel (its name; a team's channel is `team:<id>`).
        channel: String,
        /// What the person says.
        text: String,
    },
}

/// What the channel service tells.
#[derive(Clone, Debug, PartialEq)]
pub enum ChannelEvent {
    /// Every channel, as the channel service holds them (after the config or the teams changed).
    Listed {
        /// The config's channels, in its order, then one per team.
        channels: Vec<ChannelInfo>,
    },
    /// One channel changed (something was said, an answer ended).
    Updated {
        /// It.
        channel: ChannelInfo,
    },
}
