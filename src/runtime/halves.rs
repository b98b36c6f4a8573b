//! Work split in two halves, the second on a thread of its own. Small work is done on the calling
//! thread alone: a thread's start costs more than a few files' reads, and with other programs
//! running each thread handed work waits for a processor before it starts (issue 50: a
//! one-file merge started five threads, and with two busy programs beside it each waited).

/// Runs `f` on `items`: in two halves, the second on another thread, when there are at least
/// `alone` of them; else on them all here. The answers in order (one or two).
pub fn halves<'a, T: Sync, R: Send>(items: &'a [T], alone: usize, f: impl Fn(&'a [T]) -> R + Sync) -> Vec<R> {
    if items.len() < alone.max(2) {
        return vec![f(items)];
    }
    let (first, second) = items.split_at(items.len().div_ceil(2));
    std::thread::scope(|scope| {
        let other = scope.spawn(|| f(second));
        let mine = f(first);
        vec![mine, other.join().expect("worker thread")]
    })
}

/// Files a merge step handles here before it splits them on two threads.
pub const FEW_FILES: usize = 16;

/// Tracked files a change scan compares here, and walks the folder for new files after, before
/// it does both at once on two threads.
pub const FEW_TRACKED: usize = 1000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answers_keep_the_items_order_split_or_not() {
        let items: Vec<u32> = (0..10).collect();
        let here = std::thread::current().id();
        let alone = halves(&items, 20, |part| (part.to_vec(), std::thread::current().id() == here));
        assert_eq!(alone, vec![(items.clone(), true)]);
        let split = halves(&items, 4, |part| (part.to_vec(), std::thread::current().id() == here));
        assert_eq!(split, vec![((0..5).collect(), true), ((5..10).collect(), false)]);
        assert_eq!(halves(&[] as &[u32], 0, |part| part.len()), vec![0]);
    }
}
