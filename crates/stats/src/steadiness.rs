//! Whether a reference workload ran at the same speed throughout: which of its readings
//! moved away from the rest, by a threshold taken from its own noise.
//!
//! A host with modes (a neighbour on the core for a while, then not) moves a fixed
//! workload by tens of percent for a stretch of time; between those stretches the same
//! workload repeats to a fraction of a percent. The reference is the median reading, the
//! noise the median absolute deviation around it (scaled to a normal standard
//! deviation), and a reading moved where it lies more than [`NOISE_MULTIPLE`] noises, and
//! at least [`FLOOR`], from the reference. Both are robust while fewer than half of the
//! readings moved; where more did, the moved ones are the reference and the rest stand
//! out, which is what is wanted of a run measured mostly in another mode.

/// How many of its noises a reading lies from the reference before it counts as moved.
pub const NOISE_MULTIPLE: f64 = 6.0;
/// The least threshold, as a fraction: no workload repeats better than this between
/// processes on the hosts measured, so a smaller noise is luck, not a property.
pub const FLOOR: f64 = 0.02;
/// The normal-consistency constant of the median absolute deviation.
const MAD_TO_SD: f64 = 1.4826;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Steadiness {
    /// The median reading.
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
}

/// The reference, noise and threshold of `readings`; `None` for fewer than three readings,
/// a non-finite one, or a reference that is not positive.
pub fn steadiness(readings: &[f64]) -> Option<Steadiness> {
    if readings.len() < 3 {
        return None;
    }
    let reference = crate::median(readings)?;
    if reference <= 0.0 {
        return None;
    }
    let deviations: Vec<f64> = readings.iter().map(|x| (x - reference).abs()).collect();
    let noise = MAD_TO_SD * crate::median(&deviations)? / reference;
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
        // Median 100; deviations 0,1,1,2,2 -> MAD 1 -> noise 1.4826 %, threshold 8.9 %.
        let s = steadiness(&[98.0, 99.0, 100.0, 101.0, 102.0]).unwrap();
        assert_eq!(s.reference, 100.0);
        assert!((s.noise - 0.014826).abs() < 1e-12);
        assert!((s.threshold - 6.0 * 0.014826).abs() < 1e-12);
        assert!(!s.moved(108.0));
        assert!(s.moved(109.0));
        assert!(s.moved(91.0));
        assert!((s.deviation(110.0) - 0.10).abs() < 1e-12);
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
