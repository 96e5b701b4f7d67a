// Samplers passed as kernel arguments: the host's CLK_* value decides the sampler state
// (here normalized coordinates, mirrored repeat, nearest; and unnormalized clamp to the
// edge), as a driver writes it into the kernel's sampler state array.
__kernel void image_sampler_arg(__read_only image2d_t img, sampler_t s_mirror,
                                sampler_t s_edge, __global float4 *out) {
    int x = get_global_id(0), y = get_global_id(1);
    int k = y * (int)get_global_size(0) + x;
    float2 nc = (float2)((x - 4) / 16.0f + 0.03125f, (y - 2) / 8.0f + 0.0625f);
    out[2 * k] = read_imagef(img, s_mirror, nc);
    out[2 * k + 1] = read_imagef(img, s_edge, (float2)(x - 3.5f, y - 1.75f));
}
