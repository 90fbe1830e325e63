import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { type Principal, principalKind } from '@bastion/contracts';
import { ApiReply } from '../http/api-reply';
import { whoAmI } from './who-am-i';

@ApiTags('api tokens')
@ApiBearerAuth()
@Controller('backend/v1/users')
export class UsersController {
  @Get('me')
  @ApiOperation({ summary: 'The caller: a user (JWT) or an API key, with its tenant, roles and project' })
  @ApiReply('UserReply')
  me(@CurrentPrincipal() principal: Principal) {
    return whoAmI(principal, principalKind(principal));
  }
}
