//! Search across every stored conversation (issue 18): a history of 1,000,000 generated messages
//! (words drawn, with a Zipf law, from the vocabulary of this project's own documents), stored the
//! way the recorder stores them (`Store::save_messages`, a thread of 100 messages at a time), then:
//! - query latency: 200 queries (rare words, common words, two words, a 3-letter prefix as typed),
//!   p50 / p95 / max, quiet and then with two busy processes (`yes`) beside — goal: each class's
//!   p95 ≤ 50 ms in both; each class is told against the stored baseline
//!   (benches/data/search_baseline.txt), and SLOWER when more than a quarter slower;
//! - indexing while streaming: 1,000 answers of 20 fragments each, saved after every fragment (the
//!   recorder's worst case: one event per batch) into the full history, the last one ending the
//!   turn — goal ≥ 10,000 fragments/s; then each answer is found by its last words;
//! - the recorder (the app's own path: events in, batches saved and indexed): 20,000 fragments sent
//!   as fast as it takes them, until all are saved;
//! - size: the database file (WAL checkpointed) against the bytes of text it holds — goal ≤ 1.5×.
//!
//! Run: `cargo perf --bench search` (`SEARCH_MESSAGES=100000` for a smaller history,
//! `SEARCH_ANSWER_WORDS=50-400` for longer answers).

use std::path::Path;
use std::time::Instant;

use sidekicks::model::conversation::{Message, Role, TurnEnd, Update};
use sidekicks::model::search::Place;
use sidekicks::protocol::AgentEvent;
use sidekicks::protocol::Event;
use sidekicks::runtime::store::{SearchScope, Store};

#[path = "common/busy.rs"]
mod busy;

/// A small, fast generator (xorshift): the same history every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The words of the project's documents, most frequent first, as frozen in
/// benches/data/search_vocabulary.txt (one per line) so that every run, before and after a change
/// to the documents, searches the same history; made from the documents when that file is missing.
fn vocabulary() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let frozen = root.join("benches/data/search_vocabulary.txt");
    if let Ok(text) = std::fs::read_to_string(&frozen) {
        return text.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
    }
    let words = document_words(root);
    std::fs::write(&frozen, words.join("\n") + "\n").unwrap();
    words
}

/// The words of the project's documents, most frequent first.
fn document_words(root: &Path) -> Vec<String> {
    let mut counts = std::collections::HashMap::<String, usize>::new();
    let mut files = vec![root.join("README.md"), root.join("../shared/DESIGN.md")];
    for dir in [root.join("docs"), root.join("docs/adr")] {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if entry.path().extension().is_some_and(|e| e == "md") {
                files.push(entry.path());
            }
        }
    }
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > 1) {
            *counts.entry(word.to_lowercase()).or_default() += 1;
        }
    }
    let mut words: Vec<(String, usize)> = counts.into_iter().collect();
    words.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    words.into_iter().map(|(w, _)| w).collect()
}

/// Draws word ranks with a Zipf law (s = 1) by inverting the cumulative weights.
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(n: usize) -> Self {
        let mut total = 0.0;
        let cumulative = (1..=n)
            .map(|k| {
                total += 1.0 / k as f64;
                total
            })
            .collect();
        Self { cumulative }
    }

    fn draw(&self, rng: &mut Rng) -> usize {
        let total = *self.cumulative.last().unwrap();
        let x = (rng.next() as f64 / u64::MAX as f64) * total;
        self.cumulative.partition_point(|&c| c < x).min(self.cumulative.len() - 1)
    }
}

fn sentence(rng: &mut Rng, zipf: &Zipf, words: &[String], count: usize) -> String {
    let mut out = String::new();
    for i in 0..count {
        if i > 0 {
            out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
        }
        out.push_str(&words[zipf.draw(rng)]);
    }
    out
}

/// The query classes, in the order the queries are made.
const KINDS: [&str; 4] = ["rare word", "common word", "two words", "3-letter prefix"];

/// The goal for each class's p95, quiet or loaded (issue 50).
const GOAL_MS: f64 = 50.0;

/// Runs `queries` once each; their times sorted, each class's sorted, and the results found.
fn ask(store: &Store, scope: &SearchScope, queries: &[String]) -> (Vec<f64>, [Vec<f64>; 4], usize) {
    let mut times = Vec::new();
    let mut by_kind: [Vec<f64>; 4] = Default::default();
    let mut found = 0;
    for (i, q) in queries.iter().enumerate() {
        let t = Instant::now();
        found += store.search(scope, q, 50).unwrap().len();
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        times.push(ms);
        by_kind[i % 4].push(ms);
    }
    times.sort_by(f64::total_cmp);
    for t in &mut by_kind {
        t.sort_by(f64::total_cmp);
    }
    (times, by_kind, found)
}

/// The p95 of each class a run is told against: `benches/data/search_baseline.txt`, lines of
/// `history | class | quiet or loaded | p95 ms` (the history `short` or `answer-sized`).
struct Baseline(Vec<(String, String, f64)>);

impl Baseline {
    fn read(history: Option<&str>) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/search_baseline.txt");
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let rows = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                let [h, class, load, ms] = cells.as_slice() else { return None };
                (Some(*h) == history).then(|| Some((class.to_string(), load.to_string(), ms.parse().ok()?)))?
            })
            .collect();
        Self(rows)
    }

    /// What to say after a class's p95: against the baseline, and the goal when above it.
    fn told(&self, class: &str, load: &str, p95: f64) -> String {
        let mut said = match self.0.iter().find(|(c, l, _)| c == class && l == load) {
            Some((_, _, was)) => {
                let ratio = p95 / was;
                let slower = if ratio > 1.25 { " SLOWER than the baseline" } else { "" };
                format!(" (baseline {was:.2} ms: {ratio:.2}×{slower})")
            }
            None => " (no baseline for this history)".to_string(),
        };
        if p95 > GOAL_MS {
            said.push_str(&format!(" ABOVE the goal of {GOAL_MS} ms"));
        }
        said
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let total: usize = std::env::var("SEARCH_MESSAGES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    // Words in an answer: 10–80 by default (`SEARCH_ANSWER_WORDS=50-400` for longer ones).
    let (short, long) = std::env::var("SEARCH_ANSWER_WORDS")
        .ok()
        .and_then(|v| v.split_once('-').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?))))
        .unwrap_or((10usize, 80usize));
    let words = vocabulary();
    let zipf = Zipf::new(words.len());
    println!("vocabulary: {} words (benches/data/search_vocabulary.txt)", words.len());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    let store = Store::open(&path).unwrap();
    let cfg = Path::new("/bench/sidekicks.toml");
    let mut rng = Rng(0x5eed_1234_abcd_9876);

    // The history, a thread at a time.
    let started = Instant::now();
    let mut text_bytes = 0usize;
    let agents = ["ada", "bob", "cyd", "dee", "eve"];
    let scope = SearchScope::new(cfg, agents.iter().map(|a| (cfg, *a)));
    for t in 0..total.div_ceil(100) {
        let agent = agents[t % agents.len()];
        let thread = store.new_thread(cfg, agent, None).unwrap();
        let messages: Vec<Message> = (0..100.min(total - t * 100))
            .map(|i| {
                let (role, count) = if i % 2 == 0 {
                    (Role::User, 4 + rng.below(20))
                } else {
                    (Role::Agent, short + rng.below(long - short))
                };
                let text = sentence(&mut rng, &zipf, &words, count);
                text_bytes += text.len();
                let mut message = Message::new(role, text);
                // When it was written, as the app keeps it: a minute apart, from late 2026.
                message.at = Some(1_796_000_000 + (t * 100 + i) as u64 * 60);
                if role == Role::Agent {
                    // A stored answer is a finished one (its turn ended).
                    message.end = Some(TurnEnd::EndTurn);
                }
                message
            })
            .collect();
        store.save_messages(thread, 0, &messages).unwrap();
    }
    let fill = started.elapsed().as_secs_f64();
    println!(
        "history: {total} messages, {:.1} MB of text, stored in {fill:.1} s ({:.0} messages/s)",
        text_bytes as f64 / 1e6,
        total as f64 / fill
    );

    // Queries.
    let mut queries: Vec<String> = Vec::new();
    for i in 0..50 {
        queries.push(words[words.len() / 2 + i * 7].clone()); // rare
        queries.push(words[i * 3].clone()); // common
        queries.push(format!("{} {}", words[20 + i], words[300 + i * 5])); // two words
        let w = &words[100 + i * 11];
        queries.push(w.chars().take(3).collect()); // typed so far
    }
    // Each class quiet, then with two busy processes on the two cores; each told against the
    // stored baseline (benches/data/search_baseline.txt) and the goal.
    let corpus = match (total, short, long) {
        (1_000_000, 10, 80) => Some("short"),
        (1_000_000, 50, 400) => Some("answer-sized"),
        _ => None,
    };
    let baseline = Baseline::read(corpus);
    for load in ["quiet", "loaded"] {
        let busy = (load == "loaded").then(|| busy::Busy::start(2));
        let (times, by_kind, found) = ask(&store, &scope, &queries);
        drop(busy);
        println!(
            "queries, {load}: {} (limit 50, {found} results in all): p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
            queries.len(),
            percentile(&times, 0.5),
            percentile(&times, 0.95),
            times.last().unwrap()
        );
        for (kind, t) in KINDS.into_iter().zip(by_kind) {
            let p95 = percentile(&t, 0.95);
            println!("  {kind}: p50 {:.2} ms, p95 {p95:.2} ms{}", percentile(&t, 0.5), baseline.told(kind, load, p95));
        }
    }

    // Streaming into the full history: each fragment saved as it comes.
    let thread = store.new_thread(cfg, "ada", None).unwrap();
    let mut conversation: Vec<Message> = Vec::new();
    let started = Instant::now();
    let mut fragments = 0;
    for _ in 0..1000 {
        conversation.push(Message::new(Role::Agent, ""));
        let seq = conversation.len() - 1;
        for f in 0..20 {
            let piece = sentence(&mut rng, &zipf, &words, 3);
            let message = &mut conversation[seq];
            let mut text = message.text();
            text.push(' ');
            text.push_str(&piece);
            *message = Message::new(Role::Agent, text);
            if f == 19 {
                // The turn ends: the whole answer is indexed.
                message.end = Some(TurnEnd::EndTurn);
            }
            store.save_messages(thread, seq, &conversation).unwrap();
            fragments += 1;
        }
    }
    let streamed = started.elapsed().as_secs_f64();
    let last = conversation.last().unwrap().text();
    let tail: Vec<&str> = last.split_whitespace().rev().take(3).collect();
    let hits = store.search(&scope, &tail.join(" "), 50).unwrap();
    assert!(
        hits.iter().any(|h| matches!(h.place, Place::Thread { thread: t, .. } if t == thread)),
        "the streamed answer is found by its last words"
    );
    println!(
        "streaming: {fragments} fragments saved one by one in {streamed:.2} s: {:.0} fragments/s",
        fragments as f64 / streamed
    );

    // The recorder itself (what the app runs): fragments of 200 answers sent as fast as it takes
    // them, then a flush; it saves after each batch of what arrived meanwhile.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let history = sidekicks::runtime::history::spawn_recorder(store.clone());
    let started = Instant::now();
    let mut sent = 0usize;
    rt.block_on(async {
        // The manager tells the recorder each agent's thread before anything of it.
        let thread = store.current_thread(cfg, "eve").unwrap();
        let messages = store.thread(thread).unwrap().messages;
        history.record(Event::Agent("eve".into(), AgentEvent::ThreadOpened { thread, messages })).await;
        for _ in 0..200 {
            for _ in 0..100 {
                let piece = format!(" {}", sentence(&mut rng, &zipf, &words, 3));
                history.record(Event::Agent("eve".into(), AgentEvent::Update { update: Update::Text(piece) })).await;
                sent += 1;
            }
            history.record(Event::Agent("eve".into(), AgentEvent::TurnEnded { end: TurnEnd::EndTurn })).await;
        }
        assert!(history.flush().await);
    });
    let recorded = started.elapsed().as_secs_f64();
    println!(
        "recorder: {sent} fragments recorded, saved and indexed in {recorded:.2} s: {:.0} fragments/s",
        sent as f64 / recorded
    );

    // Size, once every connection is closed (the recorder's thread ends with its channel; the last
    // connection to close folds the WAL back into the file).
    drop(history);
    while std::sync::Arc::strong_count(&store) > 1 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    drop(store);
    let store = Store::open(&path).unwrap();
    drop(store);
    let size = std::fs::metadata(&path).unwrap().len()
        + std::fs::metadata(path.with_extension("db-wal")).map_or(0, |m| m.len());
    println!(
        "size: {:.1} MB for {:.1} MB of text: {:.2}× the text",
        size as f64 / 1e6,
        text_bytes as f64 / 1e6,
        size as f64 / text_bytes as f64
    );
    if let Some(keep) = std::env::var_os("SEARCH_KEEP") {
        std::fs::copy(&path, keep).unwrap();
    }
}
