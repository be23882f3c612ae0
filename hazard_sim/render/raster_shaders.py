"""GLSL sources of the raster backend (see raster.py for the passes)."""

# What every geometry program shares: the camera uniforms, the projection (optical z kept
# for the z-depth target) and the three render targets (colour, instance id, z-depth).
_CAMERA = """uniform vec3 eye;          // camera position (world)
uniform mat3 view;         // optical-from-world rotation
uniform vec4 proj;         // (2 f / W, 2 f / H, A, B): z_clip = A z + B, w_clip = z
"""
_PROJECT = """    vec3 p = view * (in_pos - eye);
    v_z = p.z;
    gl_Position = vec4(proj.x * p.x, proj.y * p.y, proj.z * p.z + proj.w, p.z);
"""
_TARGETS = """layout(location = 0) out vec4 o_col;
layout(location = 1) out int o_id;
layout(location = 2) out float o_z;
"""


def _coloured(colour: str) -> tuple[str, str]:
    """Vertex and fragment shader of geometry with a colour a vertex, ``colour`` its
    interpolation qualifier (``"flat "``: one colour a triangle)."""
    vs = f"""
#version 330
{_CAMERA}in vec3 in_pos;
in vec4 in_col;
in int in_id;
{colour}out vec4 v_col;
flat out int v_id;
out float v_z;
void main() {{
{_PROJECT}    v_col = in_col;
    v_id = in_id;
}}
"""
    fs = f"""
#version 330
{colour}in vec4 v_col;
flat in int v_id;
in float v_z;
{_TARGETS}void main() {{
    o_col = v_col;
    o_id = v_id;
    o_z = v_z;
}}
"""
    return vs, fs


# Boxes: flat attributes (the ray caster shades per triangle).
GEOM_VS, GEOM_FS = _coloured("flat ")

# One triangle covering the viewport, on the far plane (window depth 1).
FULL_VS = """
#version 330
in vec2 in_ndc;
void main() { gl_Position = vec4(in_ndc, 1.0, 1.0); }
"""

BG_FS = f"""
#version 330
uniform vec4 bg;
uniform float inf;
{_TARGETS}void main() {{ o_col = bg; o_id = 0; o_z = inf; }}
"""

# Water (see WaterSurface), once per pixel after the geometry: rays are
# eye + t d with d of unit optical z (t = z-depth), as in the ray caster, and
# are clipped (Cyrus-Beck) against the planes of the convex water body
# n . p <= c: the surface z <= level, the bottom -z <= 0 and the slope
# z + k u . xy <= level + k u . origin. Each plane is given by num = c - n . eye
# (< 0: the eye is outside it, so the ray can only enter there).
WATER_VS = """
#version 330
uniform mat3 ray;          // world ray direction = ray * (window x, window y, 1)
uniform vec2 size;         // (W, H)
in vec2 in_ndc;
noperspective out vec3 v_dir;
void main() {
    gl_Position = vec4(in_ndc, 1.0, 1.0);
    v_dir = ray * vec3((in_ndc + 1.0) * 0.5 * size, 1.0);   // affine in window x, y
}
"""

WATER_FS = """
#version 330
uniform sampler2D col_tex;
uniform sampler2D z_tex;
uniform vec3 eye;
uniform float inf;
uniform vec3 nums;         // num of the surface, bottom and slope planes
uniform vec2 slope_n;      // k u (xy of the slope plane normal; its z is 1)
uniform float wet;         // 0: no water body at all (level <= 0)
uniform vec4 hfield;       // (level, k, origin . u, 0)
uniform vec2 hdir;         // u
uniform vec3 wcol;         // water colour, 0..255
uniform float walpha;
noperspective in vec3 v_dir;
layout(location = 0) out vec4 o_col;
layout(location = 1) out float o_wd;
void main() {
    ivec2 px = ivec2(gl_FragCoord.xy);
    vec4 c = texelFetch(col_tex, px, 0);
    float z = texelFetch(z_tex, px, 0).r;
    vec3 d = v_dir;
    float rz = 1.0 / d.z;
    vec3 t = nums * vec3(rz, -rz, 1.0 / (dot(slope_n, d.xy) + d.z));
    t = mix(vec3(inf), t, greaterThan(t, vec3(0.0)));      // the crossing, if ahead
    bvec3 outside = lessThan(nums, vec3(0.0));
    vec3 t_enter = mix(vec3(0.0), t, outside);              // eye outside: enters there
    vec3 t_leave = mix(t, vec3(inf), outside);              // eye inside: leaves there
    float t_in = max(max(t_enter.x, t_enter.y), t_enter.z);
    float t_out = min(min(t_leave.x, t_leave.y), t_leave.z);
    if (wet > 0.0 && t_in < t_out && t_in < z) {
        vec3 c8 = floor(c.rgb * 255.0 + 0.5);
        c.rgb = floor(c8 * (1.0 - walpha) + wcol * walpha + 0.5) / 255.0;
    }
    o_col = c;
    float wd = 0.0;
    if (z < inf) {
        vec3 p = eye + z * d;
        float h = max(hfield.x - hfield.y * max(p.x * hdir.x + p.y * hdir.y - hfield.z, 0.0),
                      0.0);
        wd = max(h - p.z, 0.0);
    }
    o_wd = wd;
}
"""

# Meshes (see mesh.py): same transform and outputs as GEOM_*, but indexed,
# drawn two-sided, with colours (lit per vertex on the CPU) or texture x shade
# interpolated perspective-correctly across each triangle.
MESH_COL_VS, MESH_COL_FS = _coloured("")

MESH_TEX_VS = f"""
#version 330
{_CAMERA}in vec3 in_pos;
in vec2 in_uv;
in float in_shade;
in int in_id;
out vec2 v_uv;
out float v_shade;
flat out int v_id;
out float v_z;
void main() {{
{_PROJECT}    v_uv = in_uv;
    v_shade = in_shade;
    v_id = in_id;
}}
"""

MESH_TEX_FS = f"""
#version 330
uniform sampler2D tex;     // row 0 of the image at v = 0 (uploaded top row first)
in vec2 v_uv;
in float v_shade;
flat in int v_id;
in float v_z;
{_TARGETS}void main() {{
    o_col = vec4(texture(tex, v_uv).rgb * v_shade, 1.0);
    o_id = v_id;
    o_z = v_z;
}}
"""

# Light level and fog (effects.py), once per pixel on the finished colour:
# arithmetic in 0..255 with one rounding per step, as effects.apply_light_fog.
EFFECTS_FS = """
#version 330
uniform sampler2D col_tex;
uniform sampler2D z_tex;
uniform float inf;
uniform float light;
uniform vec3 fog;          // (mode 0 none / 1 exp / 2 linear, a, b)
uniform vec3 fog_col;      // 0..255
uniform vec3 cam;          // (W / 2, H / 2, f): optical ray of a window position
layout(location = 0) out vec4 o_col;
void main() {
    ivec2 px = ivec2(gl_FragCoord.xy);
    vec4 c = texelFetch(col_tex, px, 0);
    float z = texelFetch(z_tex, px, 0).r;
    if (z < inf) {
        vec3 c8 = floor(c.rgb * 255.0 + 0.5);
        if (light != 1.0)
            c8 = floor(c8 * light + 0.5);
        if (fog.x > 0.5) {
            vec2 n = (gl_FragCoord.xy - cam.xy) / cam.z;
            float d = z * sqrt(1.0 + dot(n, n));
            float t = fog.x < 1.5 ? 1.0 - exp(-fog.y * d) : clamp(fog.y * d + fog.z, 0.0, 1.0);
            c8 = floor(c8 * (1.0 - t) + fog_col * t + 0.5);
        }
        c.rgb = c8 / 255.0;
    }
    o_col = c;
}
"""
