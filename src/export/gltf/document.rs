//! The document: the [`Writer`] every part of the pipeline writes into (the JSON root, the
//! binary buffer with its views and accessors, the notes and the extensions used), the finished
//! JSON (with the pointer channels gltf-json cannot express), and writing it as `.glb` or
//! `.gltf` + `.bin`.

use std::path::Path;

use anyhow::{Context, Result};
use glam::Vec3;
use gltf_json as json;
use json::validation::Checked::Valid;
use serde_json::{Value, json};

use super::animation::PointerChannel;
use super::{PointerAnimation, build_with, index, usize64};
use crate::scene::Scene;

/// A built glTF document: the JSON and its binary buffer.
pub struct Document {
    pub json: Value,
    pub bin: Vec<u8>,
    /// What the file cannot express, also listed in `asset.extras.notes`.
    pub notes: Vec<String>,
}

/// Writes `scene` to `path`: binary glTF for `.glb`, else JSON with a `.bin` beside it.
/// Returns the notes on what the file cannot express.
pub fn write(scene: &Scene, path: &Path) -> Result<Vec<String>> {
    write_with(scene, path, PointerAnimation::Write)
}

/// As [`write()`], with material animation as `pointers` says.
pub fn write_with(scene: &Scene, path: &Path, pointers: PointerAnimation) -> Result<Vec<String>> {
    let doc = build_with(scene, pointers)?;
    let is_glb = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if is_glb {
        crate::export::write_output(path, to_glb(&doc)?).with_context(|| format!("writing {}", path.display()))?;
    } else {
        let bin_path = path.with_extension("bin");
        let bin_name =
            bin_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "model.bin".into());
        let mut value = doc.json.clone();
        if let Some(buffer) = value.get_mut("buffers").and_then(|b| b.get_mut(0)) {
            buffer["uri"] = Value::String(relative_uri(&bin_name));
        }
        if !doc.bin.is_empty() {
            crate::export::write_output(&bin_path, &doc.bin)
                .with_context(|| format!("writing {}", bin_path.display()))?;
        }
        crate::export::write_output(path, serde_json::to_vec_pretty(&value)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(doc.notes)
}

/// Bytes a relative URI reference (RFC 3986) carries as they are: the unreserved set.
const URI_KEPT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A file name as a relative URI reference: other bytes are percent-encoded, so a name with a
/// space or `#` still reaches the file rather than a fragment.
fn relative_uri(file_name: &str) -> String {
    percent_encoding::utf8_percent_encode(file_name, URI_KEPT).to_string()
}

/// The GLB container: a 12-byte header, the JSON chunk padded with spaces and the BIN chunk
/// padded with zeros. Hand-written: gltf-json has no GLB writer, and the format is 20 lines.
pub fn to_glb(doc: &Document) -> Result<Vec<u8>> {
    let mut json_bytes = serde_json::to_vec(&doc.json)?;
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    // The binary chunk is copied once, into the output, and padded there.
    let bin_padded = doc.bin.len().next_multiple_of(4);
    let total = 12 + 8 + json_bytes.len() + if doc.bin.is_empty() { 0 } else { 8 + bin_padded };
    let length = u32::try_from(total).context("the glTF is over 4 GiB")?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json_bytes);
    if !doc.bin.is_empty() {
        let bin_length = u32::try_from(bin_padded).context("the glTF buffer is over 4 GiB")?;
        out.extend_from_slice(&bin_length.to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&doc.bin);
        out.resize(total, 0);
    }
    Ok(out)
}

/// What the file cannot express, in the order the parts found it.
#[derive(Default)]
pub(super) struct Notes(Vec<String>);

impl Notes {
    /// Adds `text` unless it was said already.
    pub(super) fn add(&mut self, text: String) {
        if !self.0.contains(&text) {
            self.0.push(text);
        }
    }

    /// Adds `text` even if it was said already (one per clip and mesh, where clips share a name).
    pub(super) fn add_again(&mut self, text: String) {
        self.0.push(text);
    }
}

/// The document being written, the one thing every part writes into: the glTF JSON root, the
/// binary buffer its views point into, the notes and the extensions used. Views, accessors and
/// animation inputs are made only here. The maps each part hands on are not kept here: the
/// pipeline in [`super::build_with`] passes them from part to part.
pub(super) struct Writer {
    pub(super) root: json::Root,
    pub(super) bin: Vec<u8>,
    pub(super) notes: Notes,
    /// Extensions the document uses, each once.
    extensions: Vec<&'static str>,
    /// The last input written by [`Self::shared_times`], for the next channel at the same times.
    last_input: Option<(Vec<f32>, u32)>,
}

impl Writer {
    /// An empty document that names mdview as its generator.
    pub(super) fn new() -> Self {
        let mut root = json::Root::default();
        root.asset.generator = Some(format!("mdview {}", env!("CARGO_PKG_VERSION")));
        Self { root, bin: Vec::new(), notes: Notes::default(), extensions: Vec::new(), last_input: None }
    }

    /// Notes `text` once ([`Notes::add`]).
    pub(super) fn note(&mut self, text: String) {
        self.notes.add(text);
    }

    /// Lists extension `name` in `extensionsUsed`, once.
    pub(super) fn use_extension(&mut self, name: &'static str) {
        if !self.extensions.contains(&name) {
            self.extensions.push(name);
        }
    }

    pub(super) fn view(&mut self, bytes: &[u8], target: Option<json::buffer::Target>) -> u32 {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let view = json::buffer::View {
            buffer: index(0),
            byte_length: usize64(bytes.len()),
            byte_offset: Some(usize64(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: None,
        };
        self.root.push(view).value() as u32
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn accessor(
        &mut self,
        view: Option<u32>,
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        bounds: Option<(Value, Value)>,
        sparse: Option<json::accessor::sparse::Sparse>,
    ) -> u32 {
        let (min, max) = bounds.map_or((None, None), |(a, b)| (Some(a), Some(b)));
        let accessor = json::Accessor {
            buffer_view: view.map(index),
            byte_offset: None,
            count: usize64(count),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse,
        };
        self.root.push(accessor).value() as u32
    }

    /// A float accessor of `width` components per element, with min and max when `bounds`.
    pub(super) fn floats(
        &mut self,
        values: &[f32],
        width: usize,
        bounds: bool,
        target: Option<json::buffer::Target>,
    ) -> u32 {
        use json::accessor::Type;
        let type_ = match width {
            1 => Type::Scalar,
            2 => Type::Vec2,
            3 => Type::Vec3,
            4 => Type::Vec4,
            _ => Type::Mat4,
        };
        let count = values.len() / width.max(1);
        let bounds = bounds.then(|| {
            let mut min = vec![f32::INFINITY; width];
            let mut max = vec![f32::NEG_INFINITY; width];
            for chunk in values.chunks_exact(width) {
                for ((lo, hi), &v) in min.iter_mut().zip(max.iter_mut()).zip(chunk) {
                    *lo = lo.min(v);
                    *hi = hi.max(v);
                }
            }
            (json!(min), json!(max))
        });
        let view = self.view(bytemuck::cast_slice(values), target);
        self.accessor(Some(view), count, json::accessor::ComponentType::F32, type_, bounds, None)
    }

    pub(super) fn vec3s(&mut self, values: &[Vec3], bounds: bool, target: Option<json::buffer::Target>) -> u32 {
        let flat: Vec<f32> = values.iter().flat_map(|v| v.to_array()).collect();
        self.floats(&flat, 3, bounds, target)
    }

    /// Animation input: seconds, strictly increasing, with min and max.
    pub(super) fn times(&mut self, seconds: &[f32]) -> u32 {
        self.floats(seconds, 1, true, None)
    }

    /// Animation input shared by channels sampled at the same times (a node's T, R and S): the
    /// last one this made or [`Self::new_shared_times`] wrote when `seconds` match it, else a new one.
    pub(super) fn shared_times(&mut self, seconds: &[f32]) -> u32 {
        match &self.last_input {
            Some((times, input)) if times.as_slice() == seconds => *input,
            _ => self.new_shared_times(seconds),
        }
    }

    /// A new animation input, which the next [`Self::shared_times`] at the same times reuses.
    pub(super) fn new_shared_times(&mut self, seconds: &[f32]) -> u32 {
        let input = self.times(seconds);
        self.last_input = Some((seconds.to_vec(), input));
        input
    }

    /// The finished document: the buffer and extensions listed, the pointer channels of each
    /// animation (`pointer_channels`, one list per animation written) added to the JSON, and
    /// `asset.extras` saying where `scene` came from and what the file leaves out.
    pub(super) fn finish(mut self, scene: &Scene, pointer_channels: &[Vec<PointerChannel>]) -> Result<Document> {
        // A buffer must hold at least one byte: a file with nothing binary (a model of tags
        // alone) has none.
        if !self.bin.is_empty() {
            self.root.buffers.push(json::Buffer {
                byte_length: usize64(self.bin.len()),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
        self.root.extensions_used = self.extensions.iter().map(|s| s.to_string()).collect();
        let mut value = serde_json::to_value(&self.root).context("serialising the glTF JSON")?;
        // gltf-json 1.4 cannot express KHR_animation_pointer (its channel target must name a
        // node and a built-in path), so those channels are added to the serialised JSON.
        if let Some(animations) = value.get_mut("animations").and_then(Value::as_array_mut) {
            for (animation, pointers) in animations.iter_mut().zip(pointer_channels) {
                // gltf-json leaves out empty arrays; an animation of pointers only needs them.
                for key in ["channels", "samplers"] {
                    if animation.get(key).is_none() {
                        animation[key] = json!([]);
                    }
                }
                for p in pointers {
                    let samplers = animation["samplers"].as_array_mut();
                    let Some(samplers) = samplers else { continue };
                    samplers.push(json!({ "input": p.input, "output": p.output, "interpolation": "LINEAR" }));
                    let sampler = samplers.len() - 1;
                    if let Some(channels) = animation["channels"].as_array_mut() {
                        channels.push(json!({
                            "sampler": sampler,
                            "target": {
                                "path": "pointer",
                                "extensions": { "KHR_animation_pointer": { "pointer": p.pointer } }
                            }
                        }));
                    }
                }
            }
        }
        let source = scene.path.as_ref().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned());
        value["asset"]["extras"] = json!({
            "source": source,
            "format": scene.format.id(),
            "units": "metres as stored",
            "axes": "Y up, right-handed (as glTF); the decoder turned Z-up sources",
            "time": "seconds from each clip's start: (t - start) / rate in the clip's units",
            "notes": self.notes.0,
        });
        Ok(Document { json: value, bin: self.bin, notes: self.notes.0 })
    }
}
