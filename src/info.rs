//! The summary of a decoded scene that `mdview info` prints (as text or JSON) and the viewer's
//! panel shows: format, node tree, meshes with their materials, clips with their tracks, and
//! warnings. It reads only the format-neutral scene.

use serde::Serialize;

use crate::scene::{DetailSection, NodeKind, RawField, Scene, SceneKind, TrackReport, math::is_sheared};

#[derive(Debug, Serialize)]
pub struct Summary {
    pub path: Option<String>,
    pub format: &'static str,
    pub format_name: &'static str,
    pub kind: SceneKind,
    pub version: u32,
    pub nodes: Vec<NodeSummary>,
    pub meshes: Vec<MeshSummary>,
    /// Every material with its texture and the file the one texture resolver found for it
    /// (the file `render` draws), or `null` when it is missing.
    pub textures: Vec<TextureSummary>,
    /// Choices among companion files (Quake II skins, M2 skin profiles and run-time textures).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<crate::scene::OpenChoice>,
    /// Joint hierarchies of skinned formats.
    pub skeletons: Vec<SkeletonSummary>,
    /// Attachment points (tag nodes) and the joint each follows.
    pub tags: Vec<TagSummary>,
    /// Levels of detail, finest first; empty when the format has none.
    pub lods: Vec<LodSummary>,
    /// Every clip the model has (TPW sibling animations, Quake II frame groups...).
    pub clips: Vec<ClipSummary>,
    /// The clip of the opened animation file, when one was opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<String>,
    /// Length in frames of the opened animation's clip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<f32>,
    /// Tracks of the opened animation's clip, as the scene reports them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracks: Option<Vec<TrackReport>>,
    pub raw: Vec<RawField>,
    /// Format-specific tables (M2: skins, texture units, textures, sequences, markers).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<DetailSection>,
    /// The parts of an assembled scene (a Quake 3 player's legs, torso and head; a park's
    /// items), with their facts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<crate::scene::Part>,
    /// Clips that play at once, each on its own clock (a player's legs and torso).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<LayerSummary>,
    pub warnings: Vec<String>,
    /// Decoding the file's bytes alone inside the process (warm, the fastest of a few runs),
    /// when asked for; `open_timing` has the first open and what opening adds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_ms: Option<f64>,
    /// Where opening spends its time, when asked for (`info --timing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_timing: Option<OpenTiming>,
}

/// One layer as `info` lists it: its clip and the clips it may switch to, by name.
#[derive(Debug, Serialize)]
pub struct LayerSummary {
    pub name: String,
    pub clip: Option<String>,
    pub choices: Vec<String>,
    /// Clip time at clock 0, in the clip's units.
    pub start: f32,
    pub speed: f32,
    pub playback: crate::scene::Playback,
}

impl LayerSummary {
    fn of(scene: &Scene, layer: &crate::scene::Layer) -> LayerSummary {
        let name = |c: usize| scene.clips.get(c).map(|c| c.name.clone());
        LayerSummary {
            name: layer.name.clone(),
            clip: layer.clip.and_then(name),
            choices: layer.choices.iter().filter_map(|&c| name(c)).collect(),
            start: layer.start,
            speed: layer.speed,
            playback: layer.playback,
        }
    }
}

/// Opening a file against decoding its bytes alone (an M2 with the skin the open takes, read
/// ahead: `formats::decode_inputs`), both inside the process. The first open
/// pays the process's cold start (page faults, first allocations); the warm figures repeat
/// open and decode once it is warm, so that their difference is what opening adds to
/// decoding: reading the file, skin and companion search, folder listings. Reading the model
/// file is also timed alone: the part of that difference that an open which reads the file
/// (rather than mapping it) cannot skip.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct OpenTiming {
    pub first_open_ms: f64,
    pub warm_open_ms: f64,
    pub warm_decode_ms: f64,
    pub warm_read_ms: f64,
}

impl OpenTiming {
    /// The share of a warm open spent outside decoding, in percent.
    pub fn outside_decode_percent(&self) -> f64 {
        self.percent_of_open((self.warm_open_ms - self.warm_decode_ms).max(0.0))
    }

    /// The share of a warm open that reading the model file alone takes, in percent.
    pub fn read_percent(&self) -> f64 {
        self.percent_of_open(self.warm_read_ms)
    }

    fn percent_of_open(&self, ms: f64) -> f64 {
        if self.warm_open_ms > 0.0 { 100.0 * ms / self.warm_open_ms } else { 0.0 }
    }
}

#[derive(Debug, Serialize)]
pub struct NodeSummary {
    pub index: usize,
    pub name: String,
    pub kind: NodeKind,
    pub parent: Option<usize>,
    pub mesh: Option<usize>,
    pub sheared: bool,
    /// Local matrix, row-major with translation in elements 12..14 (as TPW stores it).
    pub local: [f32; 16],
    /// The face this node rides while its mesh's vertices move (TPW face anchors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<AnchorSummary>,
}

#[derive(Debug, Serialize)]
pub struct AnchorSummary {
    pub mesh: usize,
    /// The face's corners as source vertices of the mesh, in stored order.
    pub corners: [u32; 3],
    pub u: f32,
    pub v: f32,
    pub offset: f32,
}

#[derive(Debug, Serialize)]
pub struct SkeletonSummary {
    pub name: String,
    pub joints: usize,
}

#[derive(Debug, Serialize)]
pub struct TagSummary {
    pub node: usize,
    pub name: String,
    /// The (skeleton, joint) the tag follows.
    pub joint: Option<(usize, usize)>,
}

#[derive(Debug, Serialize)]
pub struct LodSummary {
    pub name: String,
    pub meshes: Vec<usize>,
    pub vertices: usize,
    pub triangles: usize,
    /// Texture (shader) names of the level's materials, each once.
    pub textures: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct TextureSummary {
    pub material: usize,
    /// The material's name (Quake II: `skin N`, `folder skin N` for images offered from the
    /// model's folder, `weapon skin N`).
    pub name: String,
    pub texture: Option<String>,
    pub resolved: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct MeshSummary {
    pub name: String,
    pub node: Option<usize>,
    /// Vertices as stored (source positions).
    pub vertices: usize,
    pub faces: usize,
    /// Texture coordinates (one per render vertex).
    pub uvs: usize,
    pub materials: Vec<MaterialSummary>,
}

#[derive(Debug, Serialize)]
pub struct MaterialSummary {
    pub texture: Option<String>,
    pub flags: u32,
    pub see_through: bool,
    /// The texture coordinate set the material samples (0, or 1 for a mesh's second set).
    pub uv_set: u8,
    pub start: u32,
    pub end: u32,
    pub triangles: u32,
}

#[derive(Debug, Serialize)]
pub struct ClipSummary {
    pub name: String,
    pub source: Option<String>,
    /// First and last time of the clip (frames; milliseconds for M2).
    pub first: f32,
    pub last: f32,
    pub frames: f32,
    pub rate: f32,
    pub tracks: usize,
    pub playing: usize,
    pub skipped: usize,
}

impl Summary {
    pub fn of(scene: &Scene) -> Summary {
        let nodes = scene
            .nodes
            .iter()
            .enumerate()
            .map(|(index, n)| NodeSummary {
                index,
                name: n.name.clone(),
                kind: n.kind,
                parent: n.parent,
                mesh: n.mesh,
                sheared: is_sheared(&n.local),
                local: n.local.to_cols_array(),
                anchor: n.anchor.as_deref().map(|a| AnchorSummary {
                    mesh: a.mesh,
                    corners: a.corners,
                    u: a.u,
                    v: a.v,
                    offset: a.offset,
                }),
            })
            .collect();
        let meshes = scene
            .meshes
            .iter()
            .map(|m| MeshSummary {
                name: m.name.clone(),
                node: m.node,
                vertices: m.source_positions.len(),
                faces: m.triangles.len(),
                uvs: m.uvs.len(),
                materials: m
                    .submeshes
                    .iter()
                    .filter_map(|s| {
                        let material = scene.materials.get(s.material?)?;
                        Some(MaterialSummary {
                            texture: material.texture.clone(),
                            flags: material.flags,
                            see_through: material.alpha.is_see_through(),
                            uv_set: material.uv_set,
                            start: s.vertex_start,
                            end: s.vertex_end,
                            triangles: s.triangle_count,
                        })
                    })
                    .collect(),
            })
            .collect();
        let textures = scene
            .materials
            .iter()
            .enumerate()
            .map(|(material, m)| TextureSummary {
                material,
                texture: m.texture.clone(),
                name: m.name.clone(),
                resolved: scene.material_image(material).and_then(|image| image.location()),
            })
            .collect();
        let clips = scene
            .clips
            .iter()
            .map(|c| ClipSummary {
                name: c.name.clone(),
                source: c.source.as_ref().map(|p| p.display().to_string()),
                first: c.start,
                last: c.end,
                frames: c.length(),
                rate: c.rate,
                tracks: c.tracks.len(),
                playing: c.tracks.iter().filter(|t| t.skipped.is_none()).count(),
                skipped: c.tracks.iter().filter(|t| t.skipped.is_some()).count(),
            })
            .collect();
        let skeletons =
            scene.skeletons.iter().map(|s| SkeletonSummary { name: s.name.clone(), joints: s.joints.len() }).collect();
        let tags = scene
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind == NodeKind::Tag)
            .map(|(node, n)| TagSummary { node, name: n.name.clone(), joint: n.joint })
            .collect();
        let lods = scene
            .lods
            .iter()
            .map(|lod| {
                let meshes: Vec<&crate::scene::Mesh> = lod.meshes.iter().filter_map(|&m| scene.meshes.get(m)).collect();
                let mut textures: Vec<String> = Vec::new();
                let names = meshes.iter().flat_map(|m| &m.submeshes).filter_map(|s| scene.materials.get(s.material?));
                for name in names.filter_map(|m| m.texture.clone()) {
                    if !textures.contains(&name) {
                        textures.push(name);
                    }
                }
                LodSummary {
                    name: lod.name.clone(),
                    meshes: lod.meshes.clone(),
                    vertices: meshes.iter().map(|m| m.source_positions.len()).sum(),
                    triangles: meshes.iter().map(|m| m.triangles.len()).sum(),
                    textures,
                }
            })
            .collect();
        let opened =
            (scene.kind == SceneKind::Animation).then(|| scene.default_clip.and_then(|c| scene.clips.get(c))).flatten();
        let mut warnings = scene.warnings.clone();
        if let Some(clip) = opened {
            warnings.extend(clip.warnings.iter().map(|w| format!("{}: {w}", clip.name)));
        }
        Summary {
            path: scene.path.as_ref().map(|p| p.display().to_string()),
            format: scene.format.id(),
            format_name: scene.format.label(),
            kind: scene.kind,
            version: scene.version,
            nodes,
            meshes,
            textures,
            choices: scene.choices.clone(),
            skeletons,
            tags,
            lods,
            clips,
            clip: opened.map(|c| c.name.clone()),
            frames: opened.map(|c| c.length()),
            tracks: opened.map(|c| c.tracks.clone()),
            raw: scene.raw.clone(),
            details: scene.details.clone(),
            parts: scene.parts.clone(),
            layers: scene.layers.iter().map(|l| LayerSummary::of(scene, l)).collect(),
            warnings,
            decode_ms: None,
            open_timing: None,
        }
    }

    /// The human-readable report `mdview info` prints.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let kind = match self.kind {
            SceneKind::Mesh => "mesh file",
            SceneKind::Animation => "animation file",
        };
        let _ = writeln!(out, "{}", self.path.as_deref().unwrap_or("<memory>"));
        let _ = writeln!(out, "  format:  {} ({}), version {:#x}, {kind}", self.format_name, self.format, self.version);
        if let Some(ms) = self.decode_ms {
            let _ = writeln!(out, "  decode took {ms:.3} ms (the bytes alone, in memory)");
        }
        if let Some(t) = self.open_timing {
            let _ = writeln!(
                out,
                "  open took {:.3} ms (first); warm: open {:.3} ms, decode alone {:.3} ms, {:.0}% outside decoding \
                 (reading the file alone {:.3} ms, {:.0}%)",
                t.first_open_ms,
                t.warm_open_ms,
                t.warm_decode_ms,
                t.outside_decode_percent(),
                t.warm_read_ms,
                t.read_percent()
            );
        }
        let sheared = self.nodes.iter().filter(|n| n.sheared).count();
        let _ = writeln!(out, "\nNodes ({}, {} meshes, {sheared} sheared):", self.nodes.len(), self.meshes.len());
        let roots: Vec<usize> = self.nodes.iter().filter(|n| n.parent.is_none()).map(|n| n.index).collect();
        for root in roots {
            self.node_tree_text(&mut out, root, 1, 0);
        }
        if !self.meshes.is_empty() {
            let _ = writeln!(out, "\nMeshes:");
        }
        for (i, m) in self.meshes.iter().enumerate() {
            let _ = writeln!(
                out,
                "  [{i}] {}: {} vertices, {} faces, {} UVs, {} materials",
                m.name,
                m.vertices,
                m.faces,
                m.uvs,
                m.materials.len()
            );
            for (k, mat) in m.materials.iter().enumerate() {
                let texture = mat.texture.as_deref().map(|t| format!("\"{t}\"")).unwrap_or_else(|| "none".into());
                let bits: Vec<String> =
                    (0..32).map(|b| 1u32 << b).filter(|b| mat.flags & b != 0).map(|b| format!("{b:#04x}")).collect();
                let _ = writeln!(
                    out,
                    "      material {k}: texture {texture}, flags {:#04x} [{}], {}{}, vertices {}..={}, {} triangles",
                    mat.flags,
                    bits.join(" "),
                    if mat.see_through { "see-through" } else { "opaque" },
                    if mat.uv_set == 1 { ", UV set 1" } else { "" },
                    mat.start,
                    mat.end,
                    mat.triangles
                );
            }
        }
        if self.textures.iter().any(|t| t.texture.is_some()) {
            let _ = writeln!(out, "\nTextures:");
            for t in self.textures.iter().filter(|t| t.texture.is_some()) {
                let name = t.texture.as_deref().unwrap_or_default();
                let found = t.resolved.as_deref().unwrap_or("MISSING (fallback texture)");
                let _ = writeln!(out, "  [{}] {}: {name}: {found}", t.material, t.name);
            }
        }
        for choice in &self.choices {
            let options: Vec<String> = choice
                .options
                .iter()
                .enumerate()
                .map(|(i, o)| if choice.selected == Some(i) { format!("*{o}") } else { o.clone() })
                .collect();
            let _ = writeln!(out, "\n{} ({}): {}", choice.label, choice.key, options.join(", "));
        }
        self.skinning_text(&mut out);
        if !self.clips.is_empty() {
            let _ = writeln!(out, "\nAnimations:");
            for c in &self.clips {
                let marker = if self.clip.as_deref() == Some(c.name.as_str()) { "*" } else { " " };
                let tracks = if c.tracks > 0 {
                    format!(", {} tracks ({} playing, {} skipped)", c.tracks, c.playing, c.skipped)
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    " {marker}{}: {}..={} at {} per second{tracks}{}",
                    c.name,
                    c.first,
                    c.last,
                    c.rate,
                    c.source.as_deref().map(|s| format!("  [{s}]")).unwrap_or_default()
                );
            }
        }
        if let (Some(tracks), Some(frames)) = (&self.tracks, self.frames) {
            let _ = writeln!(
                out,
                "\nClip {}: {frames} frames, {} tracks",
                self.clip.as_deref().unwrap_or("?"),
                tracks.len()
            );
            for t in tracks {
                let target = match &t.target_name {
                    Some(name) => format!("{} ({name})", t.target),
                    None => t.target.to_string(),
                };
                let keys: Vec<String> = t.key_counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
                let slots: Vec<String> =
                    t.slots.iter().filter(|(_, v)| *v != 0).map(|(k, v)| format!("{k}={v:#x}")).collect();
                let _ = writeln!(
                    out,
                    "  track {}: target {target}, flags {:#x}, channels [{}]",
                    t.index,
                    t.flags,
                    t.channels.join(", ")
                );
                if !keys.is_empty() {
                    let _ = writeln!(out, "      keys: {}", keys.join(", "));
                }
                if !slots.is_empty() {
                    let _ = writeln!(out, "      slots: {}", slots.join(" "));
                }
                match &t.skipped {
                    Some(reason) => {
                        let _ = writeln!(out, "      SKIPPED: {reason}");
                    }
                    None => {
                        let _ = writeln!(out, "      plays");
                    }
                }
            }
        }
        for section in &self.details {
            let _ = writeln!(out, "\n{} ({}):", section.title, section.rows.len());
            for row in &section.rows {
                let cells: Vec<String> = row.cells().map(|(k, v)| format!("{k} {v}")).collect();
                let _ = writeln!(out, "  {}", cells.join(", "));
            }
        }
        if !self.parts.is_empty() {
            let _ = writeln!(out, "\nParts ({}):", self.parts.len());
            for p in &self.parts {
                let facts: Vec<String> = p.facts.iter().map(|(k, v)| format!("{k} {v}")).collect();
                let _ = writeln!(
                    out,
                    "  {} [{}]: nodes {:?}, meshes {:?}{}{}",
                    p.name,
                    p.group,
                    p.nodes,
                    p.meshes,
                    if facts.is_empty() { String::new() } else { format!(", {}", facts.join(", ")) },
                    p.stand_in.as_deref().map_or(String::new(), |why| format!(" (shown as a box: {why})"))
                );
            }
        }
        if !self.layers.is_empty() {
            let _ = writeln!(out, "\nLayers, playing at once ({}):", self.layers.len());
            for l in &self.layers {
                let _ = writeln!(
                    out,
                    "  {}: {} from {} at {}x, {:?}{}",
                    l.name,
                    l.clip.as_deref().unwrap_or("nothing"),
                    l.start,
                    l.speed,
                    l.playback,
                    if l.choices.is_empty() { String::new() } else { format!(", or any of {}", l.choices.join(" ")) }
                );
            }
        }
        let _ = writeln!(out, "\nWarnings ({}):", self.warnings.len());
        if self.warnings.is_empty() {
            let _ = writeln!(out, "  none");
        }
        for w in &self.warnings {
            let _ = writeln!(out, "  - {w}");
        }
        out
    }

    /// Levels of detail, skeletons and tags, each only when the model has some.
    fn skinning_text(&self, out: &mut String) {
        use std::fmt::Write;
        if !self.lods.is_empty() {
            let _ = writeln!(out, "\nLevels of detail ({}):", self.lods.len());
            for lod in &self.lods {
                let _ = writeln!(
                    out,
                    "  {}: {} surfaces, {} vertices, {} triangles; shaders: {}",
                    lod.name,
                    lod.meshes.len(),
                    lod.vertices,
                    lod.triangles,
                    if lod.textures.is_empty() { "none".to_string() } else { lod.textures.join(", ") }
                );
            }
        }
        for s in &self.skeletons {
            let _ = writeln!(out, "\nSkeleton {}: {} joints", s.name, s.joints);
        }
        if !self.tags.is_empty() {
            let _ = writeln!(out, "\nTags ({}):", self.tags.len());
            for t in &self.tags {
                let joint =
                    t.joint.map(|(s, j)| format!("joint {j} of skeleton {s}")).unwrap_or_else(|| "no joint".into());
                let _ = writeln!(out, "  {} (node {}): follows {joint}", t.name, t.node);
            }
        }
    }

    fn node_tree_text(&self, out: &mut String, index: usize, depth: usize, guard: usize) {
        use std::fmt::Write;
        let Some(node) = self.nodes.get(index) else { return };
        if guard > self.nodes.len() {
            return;
        }
        let what = match (node.kind, node.mesh) {
            (_, Some(m)) => format!("mesh {m}"),
            (NodeKind::Transform, None) => "transform-only".to_string(),
            (NodeKind::Bone, None) => "bone".to_string(),
            (NodeKind::Tag, None) => "tag".to_string(),
            (NodeKind::Mesh, None) => "empty".to_string(),
        };
        let t = [node.local[12], node.local[13], node.local[14]];
        let anchor = node.anchor.as_ref().map_or(String::new(), |a| {
            let [c0, c1, c2] = a.corners;
            format!(", anchored to mesh {} face ({c0}, {c1}, {c2}) u {} v {} offset {}", a.mesh, a.u, a.v, a.offset)
        });
        let _ = writeln!(
            out,
            "{}{} {}  ({what}{}{anchor}) local ({:.2}, {:.2}, {:.2})",
            "  ".repeat(depth),
            node.index,
            node.name,
            if node.sheared { ", SHEARED" } else { "" },
            t[0],
            t[1],
            t[2]
        );
        for child in self.nodes.iter().filter(|n| n.parent == Some(index)) {
            self.node_tree_text(out, child.index, depth + 1, guard + 1);
        }
    }
}

/// What `mdview info PARK` prints of a park save (`formats::park`): the header, every placed
/// object with the clip it plays, paths and queues by cell, and what cannot be shown and why.
#[derive(Debug, Serialize)]
pub struct ParkSummary {
    pub path: Option<String>,
    pub install: Option<String>,
    pub theme: Option<String>,
    pub version: u32,
    pub language: u8,
    pub header: crate::formats::park::WorldHeader,
    pub open: bool,
    pub clock: crate::formats::park::Clock,
    pub objects: Vec<ParkObjectSummary>,
    pub paths: Vec<crate::formats::park::PathCell>,
    pub queues: Vec<crate::formats::park::QueueCell>,
    pub unshown: Vec<crate::formats::park::Unshown>,
    /// Present ride-system slots that no object or queue cell names.
    pub unnamed_slots: usize,
    pub warnings: Vec<String>,
}

/// One placed object as `info` lists it.
#[derive(Debug, Serialize)]
pub struct ParkObjectSummary {
    pub thing: u32,
    pub item: u32,
    pub name: Option<String>,
    pub wad: Option<String>,
    pub cell: Option<[u8; 2]>,
    pub angle: u32,
    pub slot: Option<u32>,
    pub pose: crate::formats::park::placement::Pose,
}

impl ParkSummary {
    pub fn of(park: &crate::formats::park::Park) -> ParkSummary {
        let shown = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
        ParkSummary {
            path: shown(&park.path),
            install: shown(&park.install),
            theme: park.theme.clone(),
            version: park.save.version,
            language: park.save.language,
            header: park.save.world.header.clone(),
            open: park.is_open(),
            clock: park.save.clock,
            objects: park
                .items
                .iter()
                .map(|i| ParkObjectSummary {
                    thing: i.thing,
                    item: i.item,
                    name: i.name().map(str::to_string),
                    wad: i.entry.as_ref().map(|e| e.wad.display().to_string()),
                    cell: i.cell,
                    angle: i.angle,
                    slot: i.slot,
                    pose: i.pose.clone(),
                })
                .collect(),
            paths: park.paths.clone(),
            queues: park.queues.clone(),
            unshown: park.unshown.clone(),
            unnamed_slots: park.unnamed_slots,
            warnings: park.warnings.clone(),
        }
    }

    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let cell = |c: Option<[u8; 2]>| c.map_or("not placed".to_string(), |[x, y]| format!("({x}, {y})"));
        let mut out = String::new();
        let _ = writeln!(out, "Park: {}", self.path.as_deref().unwrap_or("(memory)"));
        let _ = writeln!(out, "format: TPW save, version {}, language {}", self.version, self.language);
        let _ = writeln!(
            out,
            "game tick {}, park {}, {} visitors to date, clock {} ms",
            self.header.game_tick,
            if self.open { "open" } else { "closed" },
            self.header.visitors_to_date,
            self.clock.game_ms
        );
        let _ = writeln!(
            out,
            "install: {} (theme {})",
            self.install.as_deref().unwrap_or("none"),
            self.theme.as_deref().unwrap_or("unknown")
        );
        let _ = writeln!(out, "objects ({}):", self.objects.len());
        for o in &self.objects {
            let name = o.name.as_deref().unwrap_or("?");
            let wad = o.wad.as_deref().map(|w| format!(" ({w})")).unwrap_or_default();
            let mut plays: Vec<String> = o
                .pose
                .channels
                .iter()
                .map(|c| {
                    let hold = match c.hold {
                        crate::formats::park::placement::Hold::Playing if c.looping => ", looping",
                        crate::formats::park::placement::Hold::Playing => "",
                        crate::formats::park::placement::Hold::FrozenFirst => ", frozen on frame 0",
                        crate::formats::park::placement::Hold::HeldLast => ", held on its last frame",
                    };
                    format!("{} at {} ms (frame {:.1}){hold}, speed {}", c.clip_name, c.time_ms, c.frame, c.speed)
                })
                .collect();
            if o.pose.as_built {
                plays.push("as built (last frame of C)".into());
            }
            let hidden = if o.pose.hidden_nodes.is_empty() {
                String::new()
            } else {
                format!("; hidden nodes {:?}", o.pose.hidden_nodes)
            };
            let _ = writeln!(
                out,
                "  thing {} item {} {name}{wad} at {} {}°: {}{hidden}",
                o.thing,
                o.item,
                cell(o.cell),
                o.angle,
                plays.join("; ")
            );
        }
        let _ = writeln!(out, "paths ({}):", self.paths.len());
        for p in &self.paths {
            let _ = writeln!(out, "  {} tile {} at {}°", cell(Some(p.cell)), p.index, p.angle);
        }
        let _ = writeln!(out, "queues ({}):", self.queues.len());
        for q in &self.queues {
            let _ = writeln!(out, "  {} {} at {}°", cell(Some(q.cell)), q.piece.unwrap_or("unknown piece"), q.angle);
        }
        let _ = writeln!(out, "not shown ({}):", self.unshown.len());
        for u in &self.unshown {
            let thing = u.thing.map(|t| format!("thing {t} ")).unwrap_or_default();
            let _ = writeln!(out, "  {thing}item {} at {}: {}", u.item, cell(u.cell), u.reason);
        }
        if self.unnamed_slots > 0 {
            let _ = writeln!(out, "ride system: {} records no object or queue cell names", self.unnamed_slots);
        }
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::OpenTiming;

    #[test]
    fn open_shares_are_parts_of_the_warm_open() {
        let timing = OpenTiming { first_open_ms: 0.3, warm_open_ms: 0.08, warm_decode_ms: 0.02, warm_read_ms: 0.01 };
        assert!((timing.outside_decode_percent() - 75.0).abs() < 1e-9);
        assert!((timing.read_percent() - 12.5).abs() < 1e-9);
        // An open timed faster than its decode (noise) spends nothing outside it.
        let noisy = OpenTiming { warm_open_ms: 0.01, ..timing };
        assert_eq!(noisy.outside_decode_percent(), 0.0);
        let none = OpenTiming { warm_open_ms: 0.0, ..timing };
        assert_eq!((none.outside_decode_percent(), none.read_percent()), (0.0, 0.0));
    }
}
