//! What every game of one persona's BOT account shares: the runtime its
//! matches are played on, the account's client, the persona, the settings,
//! and who the account is on Lichess once the token has told.

use std::sync::{Arc, OnceLock};

use super::Settings;
use super::client::LichessClient;
use super::wire::Account;
use crate::personas::Persona;
use crate::runtime::Runtime;

pub(crate) struct Bot {
    pub runtime: Runtime,
    pub client: LichessClient,
    pub persona: Arc<Persona>,
    pub settings: Settings,
    me: OnceLock<Account>,
}

impl Bot {
    pub fn new(runtime: Runtime, client: LichessClient, persona: Arc<Persona>, settings: Settings) -> Bot {
        Bot {
            runtime,
            client,
            persona,
            settings,
            me: OnceLock::new(),
        }
    }

    /// The account's Lichess id (lowercase); empty until known.
    pub fn me(&self) -> &str {
        self.me.get().map_or("", |a| a.id.as_str())
    }

    pub fn set_me(&self, account: Account) {
        let _ = self.me.set(account);
    }
}
