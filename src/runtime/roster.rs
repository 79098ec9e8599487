//! A club's personas on every node: a card an admin imports on one node is
//! kept in SQL (as the card the persona became), and every node installs
//! what it does not have yet, at start and then every third of the lease
//! time. On PostgreSQL only: a SQLite club is one node.

use std::sync::atomic::Ordering;

use super::Runtime;
use super::personas::CardImportError;
use crate::personas::card::{Format, ImportOptions};
use crate::store::StoredCard;

impl Runtime {
    /// Installs the club's imported personas once, then keeps watching for
    /// new ones in the background.
    pub(super) async fn keep_roster(&self) {
        let Some(leases) = self.svc.leases.clone() else {
            return;
        };
        self.sync_roster().await;
        let every = leases.ttl / 3;
        let runtime = self.clone();
        let watcher = tokio::spawn(async move {
            let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                runtime.sync_roster().await;
            }
        });
        self.lease_tasks
            .lock()
            .expect("lease tasks lock")
            .push(watcher.abort_handle());
    }

    /// Installs the cards imported since the last look that this node's
    /// roster does not already hold as they are. One that fails is tried
    /// again at the next look (the vector store may be back by then).
    async fn sync_roster(&self) {
        let seen = self.cards_seen.load(Ordering::Relaxed);
        let cards = match self.svc.db.cards_after(seen).await {
            Ok(cards) => cards,
            Err(e) => {
                tracing::warn!("could not look for personas imported on other nodes: {e}");
                return;
            }
        };
        for stored in cards {
            if let Err(e) = self.install_shared(&stored).await {
                tracing::warn!(persona = %stored.persona_id, "a persona imported on another node is not installed here yet: {e}");
                return;
            }
            self.cards_seen.store(stored.seq, Ordering::Relaxed);
        }
    }

    async fn install_shared(&self, stored: &StoredCard) -> Result<(), CardImportError> {
        let mine = self.svc.export_card(&stored.persona_id, Format::V3Png).await?;
        if mine.as_deref() == Some(stored.card.as_slice()) {
            return Ok(());
        }
        let opts = ImportOptions {
            id: Some(stored.persona_id.to_string()),
            ..ImportOptions::default()
        };
        self.svc.install_card(&stored.card, &opts, true).await?;
        tracing::info!(persona = %stored.persona_id, "installed a persona imported on another node");
        Ok(())
    }
}
