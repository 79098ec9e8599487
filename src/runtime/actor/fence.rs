//! A match runs only where its lease is held: an actor whose node could not
//! renew its leases in time stops before its next command, since another
//! node may be taking the match over (`runtime/ownership.rs`).

use super::{Command, MatchActor};
use crate::runtime::RuntimeError;

impl MatchActor {
    /// Whether this node may no longer act on the match.
    pub(super) fn lease_lost(&self) -> bool {
        self.node.leases.as_ref().is_some_and(|l| !l.valid())
    }
}

impl Command {
    /// Answers a command the actor will not run: try again (another node
    /// will have the match).
    pub(super) fn refuse(self) {
        match self {
            Command::Begin { reply, .. } | Command::User { reply, .. } | Command::State { reply } => {
                let _ = reply.send(Err(RuntimeError::Unavailable));
            }
            Command::Submit { reply, .. } => {
                let _ = reply.send(Err(RuntimeError::Unavailable));
            }
            Command::Abandon { reply, .. } | Command::Conclude { reply, .. } => {
                let _ = reply.send(Err(RuntimeError::Unavailable));
            }
            Command::IdleFired { .. } | Command::DeepScore { .. } | Command::WordsReady | Command::Clock { .. } => {}
        }
    }
}
