-- Invite codes an admin issues when registration is by invite: single use,
-- expiring. Only a code's SHA-256 is kept, as for player tokens.
CREATE TABLE invites (
    code_hash   TEXT PRIMARY KEY,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    used_at     TEXT,
    player_id   TEXT
);
