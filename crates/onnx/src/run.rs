//! Executing a [`Model`]'s nodes in order through a caller-supplied node runner.

use crate::error::{OnnxError, RunError};
use crate::model::{check_values, MlpNode, Model};
use nbits_mlp_core::Tensor;
use std::collections::HashMap;

/// Runs `model` on `inputs` (one tensor per graph input, in order), calling `f` once per node in
/// order, and returns the graph outputs in order.
///
/// `f` gets the node, its input tensors in ONNX order (`None` for an omitted `""` input; resolved
/// by name from the graph inputs, the initializers and earlier nodes' outputs) and which outputs
/// are requested (those with a non-empty name); it returns the outputs in ONNX order, `Some` at
/// least for every requested one (other entries are ignored).
///
/// Errors: a wrong number of inputs, or an input whose dtype, rank, fixed dimension or data length
/// does not match the model (naming the input); a node input that cannot be resolved or a
/// requested output `f` did not return (naming the node); `f`'s own error ([`RunError::Node`]);
/// a graph output that was never produced or does not match its declared dtype and shape.
pub fn run_graph<E>(
    model: &Model,
    inputs: &[Tensor],
    mut f: impl FnMut(&MlpNode, Vec<Option<Tensor>>, Vec<bool>) -> Result<Vec<Option<Tensor>>, E>,
) -> Result<Vec<Tensor>, RunError<E>> {
    check_values(&model.path, "input", &model.inputs, inputs)?;
    let node_err = |node: &MlpNode, reason: String| OnnxError::Node {
        file: model.path.clone(),
        node: node.label(),
        reason,
    };
    let mut values: HashMap<&str, Tensor> = model
        .inputs
        .iter()
        .map(|vi| vi.name.as_str())
        .zip(inputs.iter().cloned())
        .collect();
    let lookup = |values: &HashMap<&str, Tensor>, name: &str| {
        values
            .get(name)
            .or_else(|| model.initializers.get(name))
            .cloned()
    };

    for node in &model.nodes {
        let args = node
            .inputs
            .iter()
            .enumerate()
            .map(|(i, name)| {
                if name.is_empty() {
                    return Ok(None);
                }
                lookup(&values, name).map(Some).ok_or_else(|| {
                    node_err(node, format!("input {i} '{name}' is not a graph input, an initializer or an earlier output"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let requested: Vec<bool> = node.outputs.iter().map(|o| !o.is_empty()).collect();
        let mut results = f(node, args, requested).map_err(|error| RunError::Node {
            file: model.path.clone(),
            node: node.label(),
            error,
        })?;
        for (i, name) in node.outputs.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            let t = results.get_mut(i).and_then(Option::take).ok_or_else(|| {
                node_err(
                    node,
                    format!("the runtime returned no tensor for output {i} '{name}'"),
                )
            })?;
            values.insert(name, t);
        }
    }

    let outputs = model
        .outputs
        .iter()
        .map(|vi| {
            lookup(&values, &vi.name).ok_or_else(|| OnnxError::Value {
                file: model.path.clone(),
                kind: "output",
                name: vi.name.clone(),
                reason: "was never produced".into(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    check_values(&model.path, "output", &model.outputs, &outputs)?;
    Ok(outputs)
}
