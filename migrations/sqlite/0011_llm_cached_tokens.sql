-- Prompt tokens the endpoint served from its cache (a prefix it had seen:
-- the persona card and rules, earlier turns), as OpenAI's
-- usage.prompt_tokens_details.cached_tokens and llama.cpp's server report
-- them; 0 where the endpoint does not say.
ALTER TABLE llm_calls ADD COLUMN cached_tokens BIGINT NOT NULL DEFAULT 0;
