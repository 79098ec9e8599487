-- Whether the deeper evaluation checked a move's odds (1) or they are the
-- quick search's (0: not yet, or shed on a busy node). A game's reflection
-- and review say which of its moments rest on the quick evaluation only.
ALTER TABLE moves ADD COLUMN odds_deep INTEGER NOT NULL DEFAULT 0;
