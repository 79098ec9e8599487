//! The cards of personas imported while the club served, in the order they
//! came: what every node of a club installs.

use sqlx::Row;

use super::{Db, StoreResult};
use crate::ids::PersonaId;

/// One import, as the card the persona became.
#[derive(Debug, Clone)]
pub struct StoredCard {
    pub seq: i64,
    pub persona_id: PersonaId,
    pub card: Vec<u8>,
}

impl Db {
    /// Keeps an import's card; its sequence number orders it after every
    /// earlier one.
    pub async fn record_card(&self, persona_id: &PersonaId, card: &[u8], node_id: Option<&str>) -> StoreResult<i64> {
        let row = sqlx::query(
            "INSERT INTO persona_cards (persona_id, card, node_id, imported_at) VALUES ($1, $2, $3, $4) RETURNING seq",
        )
        .bind(persona_id)
        .bind(card)
        .bind(node_id)
        .bind(chrono::Utc::now().to_rfc3339())
        .fetch_one(&self.pool)
        .await?;
        Ok(row.get("seq"))
    }

    /// The newest card of each persona imported after `seq`, oldest first.
    pub async fn cards_after(&self, seq: i64) -> StoreResult<Vec<StoredCard>> {
        let rows = sqlx::query(
            "SELECT c.seq, c.persona_id, c.card FROM persona_cards c \
             WHERE c.seq > $1 AND c.seq = (SELECT MAX(n.seq) FROM persona_cards n WHERE n.persona_id = c.persona_id) \
             ORDER BY c.seq",
        )
        .bind(seq)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|r| StoredCard {
                seq: r.get("seq"),
                persona_id: r.get("persona_id"),
                card: r.get("card"),
            })
            .collect())
    }
}
