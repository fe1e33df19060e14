//! What the machine offers, for settings that must fit it: a memory budget larger than the
//! memory available is refused when given, rather than ending in the kernel's
//! out-of-memory killer hours later.

/// Memory available to new allocations, in MiB (Linux's `MemAvailable`); `None` where
/// the system does not say.
pub fn available_memory_mib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kib / 1024)
}

/// Refuses a memory budget of `mib` MiB that the machine cannot give: the reason, naming
/// what is available; `None` where it fits or the system does not say.
pub fn beyond_memory(mib: u64) -> Option<String> {
    let available = available_memory_mib()?;
    (mib > available).then(|| {
        format!("{mib} MiB is more memory than this machine has available ({available} MiB)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_past_the_machine_is_refused_and_a_small_one_fits() {
        if let Some(available) = available_memory_mib() {
            assert!(available > 0);
            assert!(beyond_memory(1).is_none());
            let e = beyond_memory(available * 4 + 1024).unwrap();
            assert!(e.contains("more memory than this machine has"), "{e}");
        }
    }
}
