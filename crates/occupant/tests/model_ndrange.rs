//! Properties of the launch shape and id arithmetic.

use occupant::model::{delinearize, linearize, NDRange};
use proptest::prelude::*;

proptest! {
    #[test]
    fn linearize_inverts_delinearize(x in 1usize..9, y in 1usize..9, z in 1usize..9, seed in 0usize..10_000) {
        let sizes = [x, y, z];
        let id = seed % (x * y * z);
        prop_assert_eq!(linearize(delinearize(id, sizes), sizes), id);
    }

    #[test]
    fn valid_shapes_partition_the_global_range(
        dims in 1usize..=3, l in prop::array::uniform3(1usize..6), g in prop::array::uniform3(1usize..6)
    ) {
        let local: Vec<usize> = l[..dims].to_vec();
        let global: Vec<usize> = (0..dims).map(|d| l[d] * g[d]).collect();
        let r = NDRange::new(&global, &local).unwrap();
        prop_assert_eq!(r.group_count() * r.local_count(), r.global_count());
        prop_assert_eq!(r.dims(), dims);
    }

    #[test]
    fn non_multiples_are_rejected(g in 1usize..1000, l in 2usize..64) {
        prop_assume!(g % l != 0);
        let e = NDRange::d1(g, l).unwrap_err().to_string();
        prop_assert!(e.contains("not a multiple"), "{}", e);
    }
}
