//! `kibitz lichess`: the personas of `[[lichess.accounts]]` play on Lichess
//! as their BOT accounts, without the club's web server (`kibitz serve`
//! runs them beside it); `--check` only asks Lichess whose each token is.

use std::time::Duration;

use anyhow::Context;

use kibitz::config::Config;
use kibitz::lichess::{Lichess, LichessClient, Token};
use kibitz::runtime::Runtime;

#[derive(clap::Args)]
pub struct LichessArgs {
    /// Only check each account's token (whose account it is), then exit.
    #[arg(long)]
    check: bool,
}

pub async fn run(config: Config, args: LichessArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        !config.lichess.accounts.is_empty(),
        "no [[lichess.accounts]] in the configuration: see docs/lichess.md"
    );
    if args.check {
        return check(&config).await;
    }
    let runtime = Runtime::start(config.clone()).await.context("starting kibitz")?;
    let lichess = Lichess::start(&runtime, &config)?;
    println!(
        "{} persona(s) playing on {}; Ctrl-C stops",
        lichess.accounts(),
        config.lichess.url
    );
    tokio::signal::ctrl_c().await?;
    lichess.stop();
    super::stop(&runtime).await;
    Ok(())
}

/// Each account's token checked against Lichess: the account's name and
/// whether it is a BOT, or why it failed (the token itself never shown).
async fn check(config: &Config) -> anyhow::Result<()> {
    let wait = Duration::from_secs_f64(config.lichess.rate_limit_wait_secs);
    let mut failed = 0;
    for account in &config.lichess.accounts {
        let Some(token) = account.token() else {
            println!("{}: {} is not set", account.persona, account.token_env);
            failed += 1;
            continue;
        };
        let client = LichessClient::new(&config.lichess.url, Some(Token::new(token)), wait);
        match client.account().await {
            Ok(a) if a.title.as_deref() == Some("BOT") => println!("{}: plays as BOT {}", account.persona, a.username),
            Ok(a) => {
                println!(
                    "{}: {} is not a BOT account yet (docs/lichess.md says how)",
                    account.persona, a.username
                );
                failed += 1;
            }
            Err(e) => {
                println!("{}: {e}", account.persona);
                failed += 1;
            }
        }
    }
    anyhow::ensure!(failed == 0, "{failed} account(s) not ready");
    Ok(())
}
