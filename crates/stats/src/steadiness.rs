//! Whether a reference workload ran at the same speed throughout: which of its readings
//! moved away from the rest, by a threshold taken from its own noise.
//!
//! A host with modes (a neighbour on the core for a while, then not) moves a fixed
//! workload by tens of percent for a stretch of time; between those stretches the same
//! workload repeats to a fraction of a percent. Both are found from the *shortest half*
//! of the readings (the shorth, Rousseeuw's least-median-of-squares location): the
//! reference is the median of the half of the readings that lie closest together, the
//! noise that half's width scaled to a normal standard deviation, and a reading moved
//! where it lies more than [`NOISE_MULTIPLE`] noises, and at least [`FLOOR`], from the
//! reference. Unlike the median absolute deviation around the median, the shortest half
//! does not widen as the moved readings approach half of them (on a host that flips
//! often, 40 % of a run's processes moved and the MAD's threshold grew to 20 %): as long
//! as the steady readings are a majority, the shortest half lies among them. Where more
//! moved, the moved ones are the reference and the rest stand out, which is what is
//! wanted of a run measured mostly in another state.

/// The widest threshold, as a fraction, of readings from a host that settled: steady runs
/// on the hosts measured had 2-8 %; whole runs in a host's other state had canaries
/// spread ±34-63 %, and nothing can be judged by those.
pub const UNSETTLED: f64 = 0.12;

/// How many of its noises a reading lies from the reference before it counts as moved.
pub const NOISE_MULTIPLE: f64 = 6.0;
/// The least threshold, as a fraction: no workload repeats better than this between
/// processes on the hosts measured, so a smaller noise is luck, not a property.
pub const FLOOR: f64 = 0.02;
/// Half of a normal sample lies within this many standard deviations of its mean: the
/// shortest half of a normal sample is about twice as wide, in standard deviations.
const HALF_WITHIN: f64 = 0.674_49;

/// A workload's reference reading, noise and threshold, as [`steadiness`] finds them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Steadiness {
    /// The median of the half of the readings that lie closest together.
    pub reference: f64,
    /// The readings' robust standard deviation, as a fraction of the reference.
    pub noise: f64,
    /// How far, as a fraction of the reference, a reading may lie and still count as
    /// steady.
    pub threshold: f64,
}

impl Steadiness {
    /// Whether `reading` moved beyond the threshold, either way.
    pub fn moved(&self, reading: f64) -> bool {
        (reading / self.reference - 1.0).abs() > self.threshold
    }

    /// How far `reading` lies from the reference, as a fraction.
    pub fn deviation(&self, reading: f64) -> f64 {
        reading / self.reference - 1.0
    }

    /// Whether the readings held still enough to judge anything by (a threshold no wider
    /// than [`UNSETTLED`]).
    pub fn settled(&self) -> bool {
        self.threshold <= UNSETTLED
    }
}

/// Which of a case's processes its figures come from, given which of them moved: the
/// one rule for the analysis, which sets processes aside, and for the runner, which
/// measures more until the figures would be steady and precise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// Every process: none moved.
    All,
    /// The steady ones: the moved are set aside, as enough steady ones remain for an
    /// interval at `level`, and a majority.
    Steady,
    /// Every process, and the case is unsteady: the host never settled, or too few
    /// processes stayed steady to set the others aside.
    Unsteady,
}

/// [`Kept`] of a case whose processes `moved` flags, on a host that `settled` or not.
pub fn kept(moved: &[bool], settled: bool, level: f64) -> Kept {
    let n_moved = moved.iter().filter(|&&m| m).count();
    if !settled {
        return Kept::Unsteady;
    }
    if n_moved == 0 {
        return Kept::All;
    }
    if moved.len() - n_moved >= least_steady(moved.len(), level) {
        Kept::Steady
    } else {
        Kept::Unsteady
    }
}

/// The steady processes of `processes` needed before the others may be set aside: enough
/// for an interval at `level`, and a majority, so that the steady state is the case's
/// own. A case with fewer processes than an interval needs has none to spare.
pub fn least_steady(processes: usize, level: f64) -> usize {
    let least = crate::min_clusters(level);
    if processes >= least {
        (processes / 2 + 1).max(least)
    } else {
        usize::MAX
    }
}

/// The reference, noise and threshold of `readings`; `None` for fewer than three readings,
/// a non-finite one, or a reference that is not positive.
pub fn steadiness(readings: &[f64]) -> Option<Steadiness> {
    if readings.len() < 3 || readings.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut sorted = readings.to_vec();
    sorted.sort_by(f64::total_cmp);
    let half = sorted.len().div_ceil(2);
    let start = (0..=sorted.len() - half)
        .min_by(|&a, &b| {
            let width = |i: usize| sorted[i + half - 1] - sorted[i];
            width(a).total_cmp(&width(b))
        })
        .expect("at least one window");
    let shortest = &sorted[start..start + half];
    let reference = crate::median(shortest)?;
    if reference <= 0.0 {
        return None;
    }
    let width = shortest[half - 1] - shortest[0];
    let noise = width / (2.0 * HALF_WITHIN) / reference;
    Some(Steadiness {
        reference,
        noise,
        threshold: (NOISE_MULTIPLE * noise).max(FLOOR),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answers() {
        // Shortest half (3 of 5): 99, 100, 101, width 2 -> noise 2 / 1.349 = 1.4826 %,
        // threshold 8.9 %, reference 100.
        let s = steadiness(&[97.0, 99.0, 100.0, 101.0, 103.0]).unwrap();
        assert_eq!(s.reference, 100.0);
        assert!(
            (s.noise - 0.02 / (2.0 * HALF_WITHIN)).abs() < 1e-12,
            "{s:?}"
        );
        assert!((s.threshold - 6.0 * s.noise).abs() < 1e-12);
        assert!(!s.moved(108.0));
        assert!(s.moved(109.0));
        assert!(s.moved(91.0));
        assert!((s.deviation(110.0) - 0.10).abs() < 1e-12);
    }

    #[test]
    fn a_case_keeps_its_steady_processes_only_while_they_are_a_majority() {
        let moved = |n: usize, of: usize| -> Vec<bool> { (0..of).map(|i| i < n).collect() };
        assert_eq!(kept(&moved(0, 10), true, 0.95), Kept::All);
        // 10 processes: 6 steady are a majority, and the 6 a 95 % interval needs.
        assert_eq!(kept(&moved(4, 10), true, 0.95), Kept::Steady);
        assert_eq!(kept(&moved(5, 10), true, 0.95), Kept::Unsteady);
        // 14: a majority is 8, more than an interval needs.
        assert_eq!(kept(&moved(6, 14), true, 0.95), Kept::Steady);
        assert_eq!(kept(&moved(7, 14), true, 0.95), Kept::Unsteady);
        // Fewer than an interval needs: nothing to spare.
        assert_eq!(kept(&moved(1, 5), true, 0.95), Kept::Unsteady);
        // A host that never settled keeps everything, and says so.
        assert_eq!(kept(&moved(0, 10), false, 0.95), Kept::Unsteady);
        assert_eq!(least_steady(10, 0.95), 6);
        assert_eq!(least_steady(14, 0.95), 8);
        assert_eq!(least_steady(5, 0.95), usize::MAX);
    }

    #[test]
    fn many_moved_readings_do_not_widen_the_threshold() {
        // 6 steady within 0.4 %, 4 moved by 10-45 %: the shortest half is among the
        // steady ones, and a 5 % move still counts as one.
        let readings = [
            1000.0, 1001.0, 1002.0, 1003.0, 1004.0, 999.0, 1100.0, 1250.0, 1400.0, 1450.0,
        ];
        let s = steadiness(&readings).unwrap();
        assert!(s.reference > 999.0 && s.reference < 1004.0, "{s:?}");
        assert_eq!(s.threshold, FLOOR);
        assert_eq!(readings.iter().filter(|&&r| s.moved(r)).count(), 4);
    }

    #[test]
    fn a_quiet_workload_gets_the_floor() {
        let s = steadiness(&[1000.0, 1000.5, 999.5, 1000.0, 1000.2]).unwrap();
        assert_eq!(s.threshold, FLOOR);
        assert!(!s.moved(1019.0));
        assert!(s.moved(1021.0));
    }

    #[test]
    fn a_stretch_in_another_mode_stands_out_without_moving_the_threshold() {
        // Eight processes steady to 0.3 %, two in a mode 30 % slower.
        let mut readings = vec![22254.0, 22300.0, 22362.0, 22190.0, 22410.0, 22280.0];
        readings.extend([22330.0, 22250.0, 29269.0, 31747.0]);
        let s = steadiness(&readings).unwrap();
        assert!(s.threshold < 0.03, "{s:?}");
        let moved: Vec<bool> = readings.iter().map(|&r| s.moved(r)).collect();
        assert_eq!(moved.iter().filter(|&&m| m).count(), 2);
        assert!(moved[8] && moved[9]);
    }

    #[test]
    fn too_few_or_broken_readings_give_none() {
        assert_eq!(steadiness(&[]), None);
        assert_eq!(steadiness(&[1.0, 2.0]), None);
        assert_eq!(steadiness(&[1.0, f64::NAN, 2.0]), None);
        assert_eq!(steadiness(&[0.0, 0.0, 0.0]), None);
    }
}
