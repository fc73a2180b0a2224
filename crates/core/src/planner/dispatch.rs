//! Dispatch sizes: a pass's `dispatch` expressions evaluated and checked against the device's
//! `maxComputeWorkgroupsPerDimension` (a zero-size dispatch is legal: the pass is skipped).

use super::env::Ctx;
use super::PlanError;
use crate::manifest::Pass;

impl Ctx<'_> {
    /// The workgroup counts of `pass` (of variant `vid`) along x, y and z.
    pub(super) fn dispatch(&mut self, vid: &str, pass: &Pass) -> Result<[u32; 3], PlanError> {
        let pid = &pass.decl.id;
        let max_wg = self
            .device
            .limit("maxComputeWorkgroupsPerDimension")
            .unwrap_or(65535);
        let mut dispatch = [1u32; 3];
        for (i, e) in pass.dispatch.iter().enumerate() {
            let axis = ['x', 'y', 'z'][i];
            let val = e.eval_int(self).map_err(|err| {
                err.within(format!("variant `{vid}` pass `{pid}` dispatch.{axis}"))
            })?;
            if val < 0 || val as u64 > max_wg {
                return Err(PlanError::Dispatch {
                    pass: pid.clone(),
                    axis,
                    value: val,
                    expr: e.source().into(),
                    limit: max_wg,
                });
            }
            dispatch[i] = val as u32;
        }
        Ok(dispatch)
    }
}
