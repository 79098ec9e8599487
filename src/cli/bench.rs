//! `kibitz bench ...`: the benchmarks' arguments, parsed here and handed to
//! `crate::bench`, where each benchmark lives.

use std::path::PathBuf;
use std::time::Duration;

use kibitz::chess::engine::Style;
use kibitz::config::Config;

use crate::bench;

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchWhat,
}

#[derive(clap::Subcommand)]
enum BenchWhat {
    /// The board tools against Lichess puzzles: the share of each theme detected.
    Tools {
        /// Lichess puzzle CSV (scripts/fetch-puzzles.sh puts it here).
        #[arg(long, default_value = "bench/data/lichess_db_puzzle.csv")]
        puzzles: PathBuf,
        #[arg(long, default_value = "bench/last-tools.json")]
        json: PathBuf,
    },
    /// The main agent's prompt size per trigger at moves 10, 40 and 80.
    Prompt {
        /// A llama.cpp server (its /tokenize) for exact token counts; else estimated.
        #[arg(long)]
        tokenizer_url: Option<String>,
        #[arg(long, default_value = "bench/last-prompt.json")]
        json: PathBuf,
    },
    /// Forgetting one memory with many other players' events in the database.
    Erasure {
        /// Other players' events to fill the database with.
        #[arg(long, default_value_t = 100_000)]
        events: usize,
        #[arg(long, default_value = "bench/last-erasure.json")]
        json: PathBuf,
    },
    /// Building the review of a long finished game (a synthetic one).
    Review {
        /// Half-moves in the game.
        #[arg(long, default_value_t = 240)]
        plies: usize,
        /// Reviews built and timed.
        #[arg(long, default_value_t = 200)]
        builds: usize,
        #[arg(long, default_value = "bench/last-review.json")]
        json: PathBuf,
    },
    /// The quick odds a server gives each move against a deep evaluation of the same positions.
    Odds {
        /// Games played (the persona alternates colours).
        #[arg(long, default_value_t = 6)]
        games: usize,
        /// The persona's Elo (its card's).
        #[arg(long, default_value_t = 1500)]
        persona_elo: u32,
        /// The persona's style, which picks among the engine's near-equal lines.
        #[arg(long, value_enum, default_value = "positional")]
        style: StyleArg,
        /// The stand-in player's Elo: weaker, so the games have mistakes to class.
        #[arg(long, default_value_t = 1100)]
        player_elo: u32,
        /// Search afresh each time, without remembered evaluations or drawn
        /// opening choices (as a server did before them).
        #[arg(long)]
        fresh: bool,
        /// Where to write the figures as JSON.
        #[arg(long, default_value = "bench/last-odds.json")]
        json: PathBuf,
    },
    /// Load: N WebSocket matches against a real server; latency, lost events, idle lateness, RSS.
    Live(crate::bench::live::LiveArgs),
    /// One trigger's overhead beyond the language model, at several memory counts.
    Trigger {
        /// Stored-memory counts.
        #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
        sizes: Vec<usize>,
        /// Triggers timed per size: a p99 of 300 is its 3rd-worst sample;
        /// of 3,000 (about 2 s of triggers), its 30th.
        #[arg(long, default_value_t = 3000)]
        fires: usize,
        #[arg(long, default_value = "bench/last-trigger.json")]
        json: PathBuf,
    },
    /// Recall quality in labelled moments played through a live server.
    Recall {
        /// Labelled moments (players, memories, moments, relevant memories).
        #[arg(long, default_value = "bench/recall_moments.json")]
        set: PathBuf,
        /// Only the cases whose id contains this.
        #[arg(long)]
        only: Option<String>,
        /// Play every moment this many times and report the mean: the
        /// persona's own moves vary from run to run, and with them a few
        /// moments' recall.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
        runs: u32,
        #[arg(long, default_value = "bench/last-recall.json")]
        json: PathBuf,
        /// Also write each board moment's candidates, labelled, as JSON
        /// lines: what the board model is fitted on (corpus/moments/traces_*.jsonl).
        #[arg(long)]
        trace: Option<PathBuf>,
    },
    /// A language model's cost to the player's wait: the same matches with
    /// the scripted brain and with the model (the tests' llama-server
    /// unless --url), move->reply latency and per-trigger calls and tokens.
    Llm {
        /// An OpenAI-compatible endpoint up to /v1 (default: start the tests'
        /// llama-server with SmolLM2, built by scripts/llama-server.sh).
        #[arg(long)]
        url: Option<String>,
        #[arg(long, default_value_t = 3)]
        matches: usize,
        /// The player's moves per match.
        #[arg(long, default_value_t = 6)]
        moves: usize,
        /// How long the player thinks between moves (the model's words
        /// have this long to come before the board moves on).
        #[arg(long, default_value_t = 4000)]
        think_ms: u64,
        #[arg(long, default_value = "bench/last-llm.json")]
        json: PathBuf,
    },
    /// Listening: intent accuracy and what is remembered, on labelled chat lines.
    Chat {
        /// Labelled chat lines (text, intent, remember, fact).
        #[arg(long, default_value = "bench/chat_lines.json")]
        set: PathBuf,
        /// Print each fact kept or labelled.
        #[arg(long)]
        verbose: bool,
        #[arg(long, default_value = "bench/last-chat.json")]
        json: PathBuf,
    },
    /// The recall relevance model, fitted on one half of its corpus and scored on the other.
    Relevance {
        #[arg(long, default_value = "bench/last-relevance.json")]
        json: PathBuf,
    },
    /// Memories' subjects read from their meaning, on labelled memories in other people's words.
    Subjects {
        /// Labelled memories (text, subject, style).
        #[arg(long, default_value = "bench/heldout/memories_dev.json")]
        set: PathBuf,
        /// Print each memory read wrong.
        #[arg(long)]
        verbose: bool,
        #[arg(long, default_value = "bench/last-subjects.json")]
        json: PathBuf,
    },
    /// The news a chat line tells (good, bad, a trial ahead, none), on labelled lines.
    News {
        /// Labelled lines (text, news).
        #[arg(long, default_value = "bench/heldout/news_dev.json")]
        set: PathBuf,
        /// Print each line heard wrong.
        #[arg(long)]
        verbose: bool,
        #[arg(long, default_value = "bench/last-news.json")]
        json: PathBuf,
    },
    /// The parts of a player's life read from a text, fitted on one file of `corpus/topics/` and scored on the other.
    Topics {
        /// Instead, print the shipped reader's topics for these texts.
        #[arg(long)]
        read: Vec<String>,
        #[arg(long, default_value = "bench/last-topics.json")]
        json: PathBuf,
    },
    /// Embedding, vector search and the write policy (recall quality: `bench recall`).
    Memory {
        /// Stored-memory counts for the search benchmark.
        #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
        sizes: Vec<usize>,
        /// Searches timed per size.
        #[arg(long, default_value_t = 300)]
        queries: usize,
        /// Labelled pairs for the write policy (duplicate / contradicts / unrelated).
        #[arg(long, default_value = "bench/write_policy.json")]
        pairs: PathBuf,
        /// Optimise the index (build HNSW, merge segments) before timing searches.
        #[arg(long)]
        optimize: bool,
        /// Where to write the figures as JSON.
        #[arg(long, default_value = "bench/last-memory.json")]
        json: PathBuf,
    },
}

pub async fn run(config: &Config, args: BenchArgs) -> anyhow::Result<()> {
    match args.what {
        BenchWhat::Tools { puzzles, json } => bench::tools::run(&puzzles, &json),
        BenchWhat::Live(live) => bench::live::run(config, live).await,
        BenchWhat::Odds {
            games,
            persona_elo,
            style,
            player_elo,
            fresh,
            json,
        } => {
            let plan = bench::odds::OddsPlan {
                games,
                persona: (persona_elo, style.into()),
                player_elo,
                fresh,
                json,
            };
            bench::odds::run(config, plan).await
        }
        BenchWhat::Trigger { sizes, fires, json } => bench::trigger::run(config, &sizes, fires, &json).await,
        BenchWhat::Erasure { events, json } => bench::erasure::run(events, &json).await,
        BenchWhat::Review { plies, builds, json } => bench::review::run(plies, builds, &json).await,
        BenchWhat::Recall {
            set,
            only,
            runs,
            json,
            trace,
        } => {
            let plan = bench::recall::Plan {
                set: &set,
                only: only.as_deref(),
                runs: runs as usize,
                out: &json,
                trace: trace.as_deref(),
            };
            bench::recall::run(config, plan).await
        }
        BenchWhat::Llm {
            url,
            matches,
            moves,
            think_ms,
            json,
        } => {
            let think = Duration::from_millis(think_ms);
            let plan = bench::model_wait::Plan { matches, moves, think };
            bench::model_wait::run(config.clone(), url, plan, &json).await
        }
        BenchWhat::Chat { set, verbose, json } => bench::chat::run(config, &set, &json, verbose).await,
        BenchWhat::Relevance { json } => bench::relevance::run(config, &json).await,
        BenchWhat::Subjects { set, verbose, json } => bench::subjects::run(config, &set, &json, verbose).await,
        BenchWhat::News { set, verbose, json } => bench::news::run(config, &set, &json, verbose).await,
        BenchWhat::Topics { read, json } => bench::topics::run(config, &read, &json).await,
        BenchWhat::Prompt { tokenizer_url, json } => bench::prompt::run(config, tokenizer_url.as_deref(), &json).await,
        BenchWhat::Memory {
            sizes,
            queries,
            pairs,
            optimize,
            json,
        } => {
            let plan = bench::memory::Plan {
                sizes,
                queries,
                pairs,
                optimize,
                json,
            };
            bench::memory::run(config, plan).await
        }
    }
}

/// A persona's style, as `--style` spells it.
#[derive(Clone, Copy, clap::ValueEnum)]
enum StyleArg {
    Aggressive,
    Positional,
    Defensive,
    Tricky,
}

impl From<StyleArg> for Style {
    fn from(s: StyleArg) -> Style {
        match s {
            StyleArg::Aggressive => Style::Aggressive,
            StyleArg::Positional => Style::Positional,
            StyleArg::Defensive => Style::Defensive,
            StyleArg::Tricky => Style::Tricky,
        }
    }
}
