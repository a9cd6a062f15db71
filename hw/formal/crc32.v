// One CRC-32/MPEG-2 step, written from the polynomial (the designs' own
// step is a separate module, `Crc32Byte`): the shadows of both framers'
// proofs compute their CRC with it.
function [31:0] f_crc_step(input [31:0] crc, input [7:0] b);
    integer i;
    reg [31:0] c;
    begin
        c = crc ^ {b, 24'd0};
        for (i = 0; i < 8; i = i + 1)
            c = c[31] ? (c << 1) ^ 32'h04c11db7 : c << 1;
        f_crc_step = c;
    end
endfunction
