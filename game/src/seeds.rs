//! Seeds derived from one seed, so that every use of randomness in a run (each self-play
//! game, each training step, each match) draws from its own stream, and a seed in a
//! configuration gives the same games on every run.

/// The seed of use `index` of stream `stream` under `seed`: splitmix64 of the three, so
/// that neighbouring indices and streams give unrelated seeds.
pub fn derive(seed: u64, stream: u64, index: u64) -> u64 {
    let mut z = seed
        ^ stream.wrapping_mul(0xa076_1d64_78bd_642f)
        ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::derive;

    #[test]
    fn streams_and_indices_give_different_seeds() {
        let seeds: std::collections::HashSet<u64> = (0..4)
            .flat_map(|s| (0..256).map(move |i| derive(7, s, i)))
            .collect();
        assert_eq!(seeds.len(), 4 * 256);
        assert_eq!(derive(7, 1, 2), derive(7, 1, 2));
    }
}
