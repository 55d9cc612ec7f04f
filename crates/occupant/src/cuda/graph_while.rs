//! Device-side while loops as CUDA graphs (conditional nodes, CUDA 12.4+): [`WhileGraph`], a
//! graph whose one node is a WHILE conditional node. Its body — the launches captured once by
//! [`Gpu::capture_while`] — runs again and again on the device, with no host round trip between
//! iterations, for as long as its condition is non-zero. The condition starts at 1 on every
//! launch and device code in the body sets it with `occ::graph_continue(cond, again)` (header
//! `graph_while.cuh`, in `occupant.cuh`), given the [`ConditionHandle`] as a kernel argument.
//!
//! Device code needs nothing but NVRTC: `graph_while.cuh` declares the device runtime's
//! `cudaGraphSetConditional`, which the driver resolves when it loads the module (there is no
//! definition of it in `libcudadevrt`, and no `-rdc` link step is needed).
//!
//! ```no_run
//! use occupant::cuda::{Gpu, LaunchConfig};
//! let gpu = Gpu::open(0)?;
//! let m = gpu.compile("count.cu", r#"#include <graph_while.cuh>
//! extern "C" __global__ void step(unsigned* n, unsigned long long cond, unsigned until) {
//!   if (threadIdx.x != 0) return;
//!   *n += 1;
//!   occ::graph_continue(cond, *n < until);   // the loop's test, on the device
//! }"#, &Default::default())?;
//! let n = gpu.alloc_zeroed::<u32>(1)?;
//! let lp = gpu.capture_while(|cond| {
//!     m.enqueue("step", &LaunchConfig::plain(1, 32), &occupant::args![&n, cond.raw(), 1000u32])?;
//!     Ok(())
//! })?;
//! lp.launch()?;                             // 1000 iterations, one host call
//! gpu.synchronize()?;
//! assert_eq!(n.to_vec()?[0], 1000);
//! # Ok::<(), occupant::Error>(())
//! ```

use super::gpu::driver_err;
use super::Gpu;
use crate::model::{Error, Result};
use cudarc::driver::sys::{self, CUstreamCaptureMode};
use cudarc::driver::DriverError;

/// The driver version (`cuDriverGetVersion`) from which conditional nodes exist: CUDA 12.4.
pub const CONDITIONAL_NODES_DRIVER: i32 = 12040;

/// The handle of a [`WhileGraph`]'s condition. Pass [`ConditionHandle::raw`] to the kernel
/// that sets it (parameter type `unsigned long long`, or `occ::GraphCondition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConditionHandle(u64);

impl ConditionHandle {
    /// The handle's value, as a kernel argument.
    pub fn raw(self) -> u64 {
        self.0
    }
}

/// A WHILE conditional node and its captured body, instantiated ([`Gpu::capture_while`]).
/// Each [`WhileGraph::launch`] runs the body while its condition is non-zero (at least once:
/// the condition is 1 at the start of every launch).
pub struct WhileGraph {
    gpu: Gpu,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    handle: ConditionHandle,
}

// SAFETY: the graph and its executable are only used through &self methods that queue work on
// the GPU's stream (thread-safe driver calls) and destroyed once, in Drop.
unsafe impl Send for WhileGraph {}
// SAFETY: as above.
unsafe impl Sync for WhileGraph {}

impl Gpu {
    /// Whether the driver has conditional graph nodes (CUDA 12.4 or later).
    pub fn has_conditional_nodes(&self) -> bool {
        let mut v = 0;
        // SAFETY: out-pointer to a live integer.
        let r = unsafe { sys::cuDriverGetVersion(&mut v) };
        r == sys::CUresult::CUDA_SUCCESS && v >= CONDITIONAL_NODES_DRIVER
    }

    /// Builds a device-side while loop: a graph holding one WHILE conditional node whose body
    /// is what `record` queues (with [`Module::enqueue`](super::Module::enqueue), captured into
    /// the body, not run), and instantiates it. `record` gets the condition's handle, which
    /// some kernel of the body must pass to `occ::graph_continue` (else the body repeats
    /// forever). As with [`Gpu::capture`], the modules launched must not include the watchdog.
    ///
    /// Errors: [`Error::NoDevice`] when the driver has no conditional nodes (older than
    /// CUDA 12.4), [`Error::InvalidLaunch`] when `record` queued nothing, the driver's error
    /// otherwise; errors from `record` end the capture and are returned.
    pub fn capture_while<F: FnOnce(ConditionHandle) -> Result<()>>(
        &self,
        record: F,
    ) -> Result<WhileGraph> {
        if !self.has_conditional_nodes() {
            return Err(Error::NoDevice {
                reason: "the CUDA driver has no conditional graph nodes (needs CUDA 12.4 or later)"
                    .into(),
            });
        }
        let sh = &self.shared;
        sh.ctx
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        let call = |name: &str, r: sys::CUresult| r.result().map_err(|e| driver_err(name, e));
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: out-pointer to a live handle.
        call("cuGraphCreate", unsafe {
            sys::cuGraphCreate(&mut graph, 0)
        })?;
        // From here on the graph is owned by `lp` (destroyed on every error path).
        let mut lp = WhileGraph {
            gpu: self.clone(),
            graph,
            exec: std::ptr::null_mut(),
            handle: ConditionHandle(0),
        };
        let mut handle: sys::CUgraphConditionalHandle = 0;
        // SAFETY: live graph and context; out-pointer to a live handle.
        call("cuGraphConditionalHandleCreate", unsafe {
            sys::cuGraphConditionalHandleCreate(
                &mut handle,
                graph,
                sh.ctx.cu_ctx(),
                1,
                sys::CU_GRAPH_COND_ASSIGN_DEFAULT,
            )
        })?;
        lp.handle = ConditionHandle(handle);
        // SAFETY: an all-zero CUgraphNodeParams is a valid "empty" value of the C struct.
        let mut params: sys::CUgraphNodeParams = unsafe { std::mem::zeroed() };
        params.type_ = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL;
        params.__bindgen_anon_1.conditional = sys::CUDA_CONDITIONAL_NODE_PARAMS {
            handle,
            type_: sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_WHILE,
            size: 1,
            phGraph_out: std::ptr::null_mut(),
            ctx: sh.ctx.cu_ctx(),
        };
        let mut node: sys::CUgraphNode = std::ptr::null_mut();
        // SAFETY: live graph; no dependencies; params is a valid conditional node description
        // whose phGraph_out the driver fills with an array it owns.
        call("cuGraphAddNode(conditional WHILE)", unsafe {
            sys::cuGraphAddNode_v2(
                &mut node,
                graph,
                std::ptr::null(),
                std::ptr::null(),
                0,
                &mut params,
            )
        })?;
        // SAFETY: the driver set phGraph_out to an array of `size` (1) body graphs.
        let body = unsafe {
            let out = params.__bindgen_anon_1.conditional.phGraph_out;
            if out.is_null() {
                return Err(driver_err(
                    "cuGraphAddNode(conditional WHILE)",
                    DriverError(sys::CUresult::CUDA_ERROR_UNKNOWN),
                ));
            }
            *out
        };
        let stream = sh.stream.cu_stream();
        // SAFETY: live stream and body graph; no dependencies.
        call("cuStreamBeginCaptureToGraph", unsafe {
            sys::cuStreamBeginCaptureToGraph(
                stream,
                body,
                std::ptr::null(),
                std::ptr::null(),
                0,
                CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
            )
        })?;
        let recorded = record(lp.handle);
        let mut captured: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: the stream is capturing (begun above); out-pointer to a live handle.
        let ended = call("cuStreamEndCapture", unsafe {
            sys::cuStreamEndCapture(stream, &mut captured)
        });
        recorded?;
        ended?;
        let mut nodes = 0usize;
        // SAFETY: live body graph; a null array asks for the count only.
        call("cuGraphGetNodes", unsafe {
            sys::cuGraphGetNodes(body, std::ptr::null_mut(), &mut nodes)
        })?;
        if nodes == 0 {
            return Err(Error::InvalidLaunch(
                "the while loop's body recorded no work".into(),
            ));
        }
        // SAFETY: live graph; out-pointer to a live handle.
        call("cuGraphInstantiate", unsafe {
            sys::cuGraphInstantiateWithFlags(&mut lp.exec, graph, 0)
        })?;
        // SAFETY: live executable graph and stream.
        call("cuGraphUpload", unsafe {
            sys::cuGraphUpload(lp.exec, stream)
        })?;
        Ok(lp)
    }
}

impl WhileGraph {
    /// Queues one run of the loop (returns without waiting; [`Gpu::synchronize`] or a read
    /// waits). The loop ends when a body kernel sets the condition to 0.
    pub fn launch(&self) -> Result<()> {
        let sh = &self.gpu.shared;
        sh.ctx
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        // SAFETY: live executable graph and stream.
        unsafe { sys::cuGraphLaunch(self.exec, sh.stream.cu_stream()) }
            .result()
            .map_err(|e| driver_err("cuGraphLaunch", e))
    }

    /// The condition's handle (as given to the `record` closure).
    pub fn handle(&self) -> ConditionHandle {
        self.handle
    }
}

impl Drop for WhileGraph {
    fn drop(&mut self) {
        let sh = &self.gpu.shared;
        let _ = sh.ctx.bind_to_thread();
        // SAFETY: destroyed once each; a queued launch keeps what it needs (the driver defers
        // the destruction of a running executable graph).
        unsafe {
            if !self.exec.is_null() {
                sys::cuGraphExecDestroy(self.exec);
            }
            sys::cuGraphDestroy(self.graph);
        }
    }
}
