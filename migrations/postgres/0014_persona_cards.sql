-- Personas an admin imported while the club served, as the card each
-- became (exported back, images included): every node of a club installs
-- them from here, a node that was down or is new included.
CREATE TABLE persona_cards (
    seq          BIGSERIAL PRIMARY KEY,
    persona_id   TEXT NOT NULL,
    card         BYTEA NOT NULL,
    node_id      TEXT,
    imported_at  TEXT NOT NULL
);
CREATE INDEX persona_cards_by_persona ON persona_cards (persona_id, seq);
