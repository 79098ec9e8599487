//! `kibitz personas`: list the club's personas, import a character card as
//! one, export one as a card. Works on the personas directory alone: a
//! running server picks an imported persona up at its next start (or import
//! through `POST /api/admin/personas/import`, which adds it at once).

use std::path::PathBuf;

use anyhow::Context;
use kibitz::chess::engine::Style;
use kibitz::config::Config;
use kibitz::personas::card::{self, Format, ImportOptions};
use kibitz::personas::{self, BrainKind};

#[derive(clap::Args)]
pub struct PersonasArgs {
    #[command(subcommand)]
    command: Option<PersonasCommand>,
}

#[derive(clap::Subcommand)]
enum PersonasCommand {
    /// List the club's personas (the default).
    List,
    /// Make a persona of a character card (V2 or V3; PNG or JSON).
    ///
    /// Name, description, personality, greetings (first_mes,
    /// alternate_greetings), example dialogues (mes_example), the lorebook
    /// (as lore: keys kept, constant/insertion_order as importance) and V3
    /// emotion images come from the card; chess fields from the flags, else
    /// from defaults the command prints.
    Import {
        /// The card file.
        file: PathBuf,
        /// The persona's id (default: from the card's name).
        #[arg(long)]
        id: Option<String>,
        /// Its strength, 400..=3200 (default 1500).
        #[arg(long)]
        elo: Option<u32>,
        /// aggressive, positional, defensive or tricky (default positional).
        #[arg(long, value_parser = parse_style)]
        style: Option<Style>,
        /// engine, llm or pipeline:p+e+pl+m (default engine).
        #[arg(long, value_parser = parse_brain)]
        brain: Option<BrainKind>,
        /// Replace the persona of the same id.
        #[arg(long)]
        replace: bool,
    },
    /// Write a persona as a character card another tool reads (kibitz's
    /// chess fields under extensions.kibitz, so it imports back the same).
    Export {
        id: String,
        /// v3-png, v3-json or v2-json.
        #[arg(long, default_value = "v3-png")]
        format: Format,
        /// File to write (default: <id>.png or <id>.json here).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn parse_style(s: &str) -> Result<Style, String> {
    serde_json::from_value(serde_json::Value::String(s.into())).map_err(|e| e.to_string())
}

fn parse_brain(s: &str) -> Result<BrainKind, String> {
    BrainKind::try_from(s.to_string())
}

pub fn run(config: &Config, args: PersonasArgs) -> anyhow::Result<()> {
    let dir = &config.personas_dir;
    match args.command.unwrap_or(PersonasCommand::List) {
        PersonasCommand::List => list(config),
        PersonasCommand::Import {
            file,
            id,
            elo,
            style,
            brain,
            replace,
        } => {
            let bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let opts = ImportOptions { id, elo, style, brain };
            let read = card::read(&bytes).with_context(|| format!("reading the card {}", file.display()))?;
            let spec = read.card.spec.name();
            let imported = card::import(read, &opts).with_context(|| format!("importing {}", file.display()))?;
            let installed = personas::install(dir, &imported, replace)?;
            let p = &imported.persona;
            let verb = if installed.replaced { "replaced" } else { "imported" };
            println!(
                "{verb} {} ({}) from {spec} into {}",
                p.name,
                p.id,
                installed.path.display()
            );
            println!(
                "  {} greeting(s), {} line(s) of lore, {} example dialogue(s), {} image(s)",
                p.lines.greeting.len(),
                p.lore.len(),
                p.examples.len(),
                imported.files.len()
            );
            for note in &imported.notes {
                println!("  {note}");
            }
            println!(
                "A running server lists it after its next start (or import it with POST /api/admin/personas/import)."
            );
            Ok(())
        }
        PersonasCommand::Export { id, format, out } => {
            let all = personas::load_dir(dir)?;
            let p = all
                .iter()
                .find(|p| p.id == id)
                .with_context(|| format!("no persona `{id}` in {}", dir.display()))?;
            let files = personas::read_files(dir, p)?;
            let bytes = card::export(p, &files, format);
            let out = out.unwrap_or_else(|| PathBuf::from(format!("{id}.{}", format.extension())));
            std::fs::write(&out, &bytes).with_context(|| format!("writing {}", out.display()))?;
            println!("wrote {} ({} bytes)", out.display(), bytes.len());
            if format == Format::V2Json && !files.is_empty() {
                println!("  a V2 JSON card carries no images: v3-png or v3-json keeps them");
            }
            Ok(())
        }
    }
}

fn list(config: &Config) -> anyhow::Result<()> {
    let personas = personas::load_dir(&config.personas_dir)?;
    println!("{:<10} {:<18} {:>5}  {:<11} biography", "id", "name", "elo", "style");
    for p in personas {
        let first = p.biography.split(". ").next().unwrap_or("");
        let bio = if first.chars().count() > 70 {
            format!("{}…", first.chars().take(69).collect::<String>())
        } else {
            format!("{first}.")
        };
        let style = format!("{:?}", p.style).to_lowercase();
        println!("{:<10} {:<18} {:>5}  {:<11} {bio}", p.id, p.name, p.elo, style);
    }
    Ok(())
}
